/**
 * One probe run: build a needle document sized to N pages of the profile's best page shape, render
 * it, send the pages through the provider's client, grade the answers, and compare tokens.
 */
import type { CellName } from '../render/cells.js';
import { render } from '../render/index.js';
import { bestPageShape, imageTokens, type ResolvedProfile } from '../providers/index.js';
import type { ProviderClient } from './clients.js';
import { buildDocument } from './document.js';
import { question } from './question.js';
import { scoreAnswers, type KindRecall, type NeedleResult } from './score.js';
import type { NeedleKind } from './needles.js';

export interface ProbeOptions {
  resolved: ResolvedProfile;
  client: ProviderClient;
  cell?: CellName;
  scale?: number;
  /** Pages sent in the one request (default 1). */
  pages?: number;
  seed?: number;
  needlesPerPage?: number;
}

export interface ProbeResult {
  model: string;
  profile: { family: string; provider: string; route: string; guessed: boolean };
  cell: CellName;
  scale: number;
  seed: number;
  shape: { width: number; height: number; cols: number; rows: number; detail?: string; verified: boolean };
  pages: number;
  chars: number;
  recall: { byKind: Record<NeedleKind, KindRecall>; overall: KindRecall };
  needles: NeedleResult[];
  tokens: {
    /** Image tokens the profile's rule predicts for the pages sent. */
    imageEstimate: number;
    /** Input tokens billed minus the question alone: what the pages cost. */
    imageBilled?: number;
    input: number;
    output: number;
    question?: number;
    /** What the same content costs sent as text (counting endpoint). */
    contentText?: number;
  };
  reply: string;
  notes: string[];
}

export async function runProbe(options: ProbeOptions): Promise<ProbeResult> {
  const { resolved, client } = options;
  const profile = resolved.profile;
  if (!profile.vision) {
    throw new Error(`model '${resolved.id}' (${profile.family}) has no vision: there is nothing to probe`);
  }
  const cell = options.cell ?? '4x6';
  const scale = options.scale ?? 1;
  const pageCount = options.pages ?? 1;
  const seed = options.seed ?? 1;
  const shape = bestPageShape(profile, { cell, scale, imagesInRequest: pageCount });
  const doc = buildDocument({
    seed,
    pages: pageCount,
    cols: shape.cols,
    rows: shape.rows,
    needlesPerPage: options.needlesPerPage ?? 8,
  });
  const rendered = await render(doc.text, {
    shape: { width: shape.width, height: shape.height },
    cell,
    scale,
  });
  if (rendered.pages.length !== pageCount) {
    throw new Error(
      `probe document filled ${rendered.pages.length} pages, expected ${pageCount} (layout mismatch)`,
    );
  }
  const detail = shape.detail !== undefined ? { detail: shape.detail } : undefined;
  const imageEstimate = rendered.pages.reduce(
    (sum, p) => sum + imageTokens(profile, p.width, p.height, detail),
    0,
  );
  const reply = await client.ask({
    model: resolved.id,
    pages: rendered.pages.map((p) => p.png),
    ...(shape.detail !== undefined ? { detail: shape.detail } : {}),
    question: question(doc.needles, pageCount),
    contentText: doc.text,
    // Room for every answer line plus a reasoning model's thinking.
    maxOutputTokens: 4096 + doc.needles.length * 40,
  });
  const recall = scoreAnswers(doc.needles, reply.reply);
  return {
    model: resolved.id,
    profile: {
      family: profile.family,
      provider: profile.provider,
      route: resolved.route,
      guessed: resolved.guessed,
    },
    cell,
    scale,
    seed,
    shape: {
      width: shape.width,
      height: shape.height,
      cols: shape.cols,
      rows: shape.rows,
      ...(shape.detail !== undefined ? { detail: shape.detail } : {}),
      verified: shape.verified,
    },
    pages: pageCount,
    chars: doc.text.length,
    recall: { byKind: recall.byKind, overall: recall.overall },
    needles: recall.needles,
    tokens: {
      imageEstimate,
      ...(reply.questionTokens !== undefined
        ? { imageBilled: reply.inputTokens - reply.questionTokens }
        : {}),
      input: reply.inputTokens,
      output: reply.outputTokens,
      ...(reply.questionTokens !== undefined ? { question: reply.questionTokens } : {}),
      ...(reply.contentTextTokens !== undefined ? { contentText: reply.contentTextTokens } : {}),
    },
    reply: reply.reply,
    notes: reply.notes,
  };
}
