/**
 * A live model as a legibility reader: it transcribes the images of one reader folder of a blind kit
 * (`npm run legibility -- kit`, bench/legibility/README.md), one request per image, and its answers are
 * written beside the images as `<name>.txt`, exactly what a person or a helper reader would write. The
 * folder holds only the images and INSTRUCTIONS.md, so the model sees what any reader sees: the kit's
 * instructions and one image, never the source text. Score the folder with `legibility score`.
 * Node only (reads and writes files).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProviderClient } from './clients.js';

export interface TranscribeOptions {
  /** A reader folder of a kit: PNGs and INSTRUCTIONS.md. */
  dir: string;
  client: ProviderClient;
  model: string;
  /** OpenAI image detail (a snapshot page must not be viewed at `low`). */
  detail?: string;
  /** Transcribe again images that already have a `.txt` (default: skip them, so a run can resume). */
  force?: boolean;
  /** Output budget per image (default 8,000 tokens: a 2,600-character text is ~1,000). */
  maxOutputTokens?: number;
  onImage?: (name: string, index: number, total: number) => void;
}

export interface TranscribeResult {
  /** Images transcribed in this run, and images skipped because a transcription existed. */
  written: string[];
  skipped: string[];
  inputTokens: number;
  outputTokens: number;
}

/** What the model is asked after the kit's own instructions. */
export const TRANSCRIBE_REQUEST =
  'Transcribe the image above as the instructions say. Reply with the transcription only: no preamble, ' +
  'no commentary, no code fence.';

/** Removes one wrapping code fence a model may add despite being asked not to. */
export function unfence(reply: string): string {
  const m = /^\s*```[^\n]*\n([\s\S]*?)\n?```\s*$/.exec(reply);
  return m ? m[1]! : reply;
}

export async function transcribeKit(options: TranscribeOptions): Promise<TranscribeResult> {
  const { dir, client, model } = options;
  const instructionsPath = join(dir, 'INSTRUCTIONS.md');
  if (!existsSync(instructionsPath)) {
    throw new Error(
      `transcribe: ${instructionsPath} not found (expected a reader folder of a legibility kit)`,
    );
  }
  const instructions = readFileSync(instructionsPath, 'utf8');
  const images = readdirSync(dir)
    .filter((f) => f.endsWith('.png'))
    .sort();
  if (images.length === 0) throw new Error(`transcribe: no .png images in ${dir}`);
  const result: TranscribeResult = { written: [], skipped: [], inputTokens: 0, outputTokens: 0 };
  for (const [i, file] of images.entries()) {
    const name = file.slice(0, -'.png'.length);
    const out = join(dir, `${name}.txt`);
    if (!options.force && existsSync(out)) {
      result.skipped.push(name);
      continue;
    }
    options.onImage?.(name, i, images.length);
    const reply = await client.ask({
      model,
      pages: [readFileSync(join(dir, file))],
      ...(options.detail !== undefined ? { detail: options.detail } : {}),
      question: `${instructions}\n\n${TRANSCRIBE_REQUEST}`,
      contentText: '',
      maxOutputTokens: options.maxOutputTokens ?? 8000,
      count: false,
    });
    writeFileSync(out, unfence(reply.reply).replace(/\n?$/, '\n'));
    result.written.push(name);
    result.inputTokens += reply.inputTokens;
    result.outputTokens += reply.outputTokens;
  }
  return result;
}
