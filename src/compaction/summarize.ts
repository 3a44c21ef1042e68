/**
 * Rung 4, the summary: the only rung that spends a model call and decides what mattered, so it runs
 * last. It summarizes from the record (the original items), never from an earlier summary of items
 * it still has (summaries of summaries decay, PEERS.md #3), into a fixed structure that keeps files,
 * commands and numbers. A source too large for the summarizer's window (the overflow case) is cut into
 * chunks that each fit, summarized one by one, and the pieces merged.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { Item } from '../transcript/items.js';
import { formatItem } from './text.js';

/** One completion: the only thing the summarizer needs from a provider. */
export interface SummarizerClient {
  /** The model that writes summaries, for the report and the compaction item. */
  readonly model: string;
  complete(request: { system: string; user: string; maxTokens: number }): Promise<string>;
}

export interface ClientOptions {
  model: string;
  apiKey?: string;
  baseURL?: string;
  /** Retries of the SDK client (default 2, the SDKs' own default). */
  maxRetries?: number;
  timeoutMs?: number;
}

/** A summarizer that calls the Anthropic Messages API through `@anthropic-ai/sdk`. */
export function anthropicSummarizer(options: ClientOptions & { client?: Anthropic }): SummarizerClient {
  const client =
    options.client ??
    new Anthropic({
      apiKey: options.apiKey ?? process.env['ANTHROPIC_API_KEY'] ?? null,
      baseURL: options.baseURL ?? null,
      maxRetries: options.maxRetries ?? 2,
      ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
    });
  return {
    model: options.model,
    async complete({ system, user, maxTokens }) {
      const res = await client.messages.create({
        model: options.model,
        max_tokens: maxTokens,
        system,
        messages: [{ role: 'user', content: user }],
      });
      const text = res.content
        .map((b) => (b.type === 'text' ? b.text : ''))
        .join('')
        .trim();
      if (!text)
        throw new Error(`summarizer ${options.model} returned no text (stop reason ${res.stop_reason})`);
      return text;
    },
  };
}

/** A summarizer that calls OpenAI Chat Completions through the `openai` client. */
export function openaiSummarizer(options: ClientOptions & { client?: OpenAI }): SummarizerClient {
  const client =
    options.client ??
    new OpenAI({
      apiKey: options.apiKey ?? process.env['OPENAI_API_KEY'] ?? 'missing-key',
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      maxRetries: options.maxRetries ?? 2,
      ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
    });
  return {
    model: options.model,
    async complete({ system, user, maxTokens }) {
      const res = await client.chat.completions.create({
        model: options.model,
        max_completion_tokens: maxTokens,
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
      });
      const text = res.choices[0]?.message.content?.trim();
      if (!text) throw new Error(`summarizer ${options.model} returned no text`);
      return text;
    },
  };
}

/** The sections every summary has, in order. */
export const SUMMARY_SECTIONS = [
  'Goal',
  'Constraints and user corrections',
  'Decisions',
  'Files and commands',
  'Open tasks',
  'Numbers',
] as const;

export const SUMMARY_SYSTEM = `You compress the middle of an agent conversation so the agent can keep working without it.
Write a summary with exactly these sections, as markdown headings, in this order:
${SUMMARY_SECTIONS.map((s) => `## ${s}`).join('\n')}
Rules:
- Goal: what the person wants, in their words where possible.
- Constraints and user corrections: every instruction or correction the person typed, quoted verbatim.
- Decisions: what was decided and why, one line each.
- Files and commands: every file path touched or read and every command run, with its outcome.
- Open tasks: what is unfinished, in order.
- Numbers: every number that may matter later (counts, sizes, versions, ids, line numbers, errors).
Write "none" under a section with nothing in it. Do not invent anything; leave out pleasantries.`;

export const MERGE_SYSTEM = `You merge partial summaries of consecutive stretches of one agent conversation into one summary.
Keep exactly the same sections in the same order; keep every quoted person instruction, file path,
command and number from every part; drop only exact duplicates; order items by when they happened;
a later part overrides an earlier one where they disagree (say so).`;

export interface SummarizeOptions {
  client: SummarizerClient;
  /** Input tokens the summarizer model accepts in one call (its window minus its output). */
  window: number;
  /** Tokens of a text as the summarizer counts them. Default: length / 3, rounded up (errs high). */
  estimateText?: (text: string) => number;
  /** Extra instructions from the person (`/compact focus on the API`). */
  instructions?: string;
  /** Length of each summary. Default 4,000 tokens. */
  maxTokens?: number;
}

export interface SummaryResult {
  text: string;
  /** Pieces the source was cut into (1 when it fit at once). */
  chunks: number;
  /** Model calls made, merges included. */
  calls: number;
  /** Ids of the items summarized (earlier summaries covered by them left out). */
  source: string[];
}

const conservative = (text: string): number => Math.ceil(text.length / 3);

/**
 * The items a summary should read: compaction bookkeeping is dropped, and so is an earlier summary
 * whose covered stretch is itself in `items` (summarize from the record, not from the last summary).
 */
export function summarySource(items: readonly Item[]): Item[] {
  const ids = new Set(items.map((i) => i.id));
  return items.filter(
    (it) =>
      it.kind !== 'compaction' &&
      !(it.kind === 'summary' && it.covers && ids.has(it.covers.from) && ids.has(it.covers.to)),
  );
}

function userPrompt(
  body: string,
  instructions: string | undefined,
  part?: { index: number; of: number },
): string {
  const head = part
    ? `This is part ${part.index} of ${part.of} of the conversation, in order.`
    : 'This is the stretch of conversation to summarize.';
  const extra = instructions ? `\nThe person asks you to: ${instructions}\n` : '';
  return `${head}${extra}\n<conversation>\n${body}\n</conversation>`;
}

/** Splits transcript text into chunks of at most `budget` tokens, at item boundaries where possible. */
export function chunkTranscript(
  pieces: readonly string[],
  budget: number,
  estimate: (t: string) => number,
): string[] {
  if (budget < 16) throw new RangeError(`summarize: chunk budget ${budget} tokens is too small`);
  const chunks: string[] = [];
  let current: string[] = [];
  let used = 0;
  const flush = () => {
    if (current.length) chunks.push(current.join('\n'));
    current = [];
    used = 0;
  };
  for (const piece of pieces) {
    const t = estimate(piece) + 1;
    if (t > budget) {
      // One item larger than a chunk: cut its text by characters in proportion to the estimate.
      flush();
      const step = Math.max(1, Math.floor((piece.length * budget) / t));
      for (let at = 0; at < piece.length; at += step) chunks.push(piece.slice(at, at + step));
      continue;
    }
    if (used + t > budget) flush();
    current.push(piece);
    used += t;
  }
  flush();
  return chunks;
}

/** Summarizes `items` through `options.client`, chunking and merging when they do not fit at once. */
export async function summarize(items: readonly Item[], options: SummarizeOptions): Promise<SummaryResult> {
  const estimate = options.estimateText ?? conservative;
  const maxTokens = options.maxTokens ?? 4000;
  const source = summarySource(items);
  const overhead =
    estimate(SUMMARY_SYSTEM) + estimate(userPrompt('', options.instructions, { index: 99, of: 99 }));
  const budget = options.window - maxTokens - overhead;
  if (budget < 16) {
    throw new RangeError(
      `summarize: summarizer window ${options.window} leaves ${budget} tokens for the source after ${maxTokens} output and ${overhead} prompt`,
    );
  }
  const chunks = chunkTranscript(
    source.map((it) => formatItem(it)),
    budget,
    estimate,
  );
  let calls = 0;
  const call = async (system: string, user: string) => {
    calls++;
    return options.client.complete({ system, user, maxTokens });
  };
  if (chunks.length === 0) return { text: '', chunks: 0, calls: 0, source: [] };
  let parts: string[] = [];
  for (let i = 0; i < chunks.length; i++) {
    const part = chunks.length > 1 ? { index: i + 1, of: chunks.length } : undefined;
    parts.push(await call(SUMMARY_SYSTEM, userPrompt(chunks[i]!, options.instructions, part)));
  }
  // Merge in groups that fit, until one summary is left.
  while (parts.length > 1) {
    const groups = chunkTranscript(
      parts.map((p, i) => `<part ${i + 1}>\n${p}\n</part>`),
      options.window - maxTokens - estimate(MERGE_SYSTEM) - 64,
      estimate,
    );
    if (groups.length >= parts.length) {
      throw new Error(
        `summarize: summaries of ${parts.length} parts do not fit the summarizer window ${options.window} to merge`,
      );
    }
    const merged: string[] = [];
    for (const g of groups) {
      merged.push(
        await call(
          MERGE_SYSTEM,
          `${options.instructions ? `The person asks you to: ${options.instructions}\n` : ''}${g}`,
        ),
      );
    }
    parts = merged;
  }
  return { text: parts[0]!, chunks: chunks.length, calls, source: source.map((i) => i.id) };
}
