/** `glyphfold probe`: measure whether a model reads snapshot pages, on the real provider. */
import { MAX_SCALE, type CellName } from '../render/cells.js';
import type { Command } from './command.js';

/** Cells and scales `--shapes` tries, smallest glyphs first. */
export const PROBE_SHAPES: readonly { cell: CellName; scale: number }[] = [
  { cell: '4x6', scale: 1 },
  { cell: '5x8', scale: 1 },
  { cell: '6x10', scale: 1 },
  { cell: '4x6', scale: 2 },
  { cell: '5x8', scale: 2 },
];

const usage = `usage: glyphfold probe --model ID [--cell 4x6|5x8|6x10] [--scale 1-${MAX_SCALE}] [--pages N]
                       [--shapes] [--seed N] [--needles N] [--json] [--out FILE] [--base-url URL]
       glyphfold probe --model ID --transcribe DIR [--force] [--base-url URL]

Renders pages of prose and code with planted needles (codes, numbers, identifiers, a quoted
sentence) in the page shape the model's profile asks for, sends them through the provider's own API,
asks for the needles back, and reports recall per kind (exact / partial: normalized edit distance
≤ 0.2 / none), billed image tokens against the profile's estimate, and what the same content costs
as text. Costs real tokens: one request per shape.

  --model ID       model id as your route names it (claude-sonnet-4-6, gpt-5.1, …)
  --cell, --scale  glyph cell and integer scale (default 4x6, 1)
  --pages N        pages in the one request (default 1)
  --shapes         run ${PROBE_SHAPES.map((s) => `${s.cell}@${s.scale}`).join(', ')} and print a table
  --seed N         document and needle seed (default 1): same seed, same pages
  --needles N      needles per page (default 8)
  --json           print the results as JSON instead of a table
  --out FILE       also write the JSON results to FILE
  --base-url URL   send to this endpoint instead of the vendor's (same API and key variable)
  --transcribe DIR the model as a blind legibility reader: transcribe every image of DIR, a reader
                   folder of a legibility kit (npm run legibility -- kit), one request per image, into
                   <name>.txt beside it (existing ones are kept unless --force); then score the kit
                   with npm run legibility -- score (bench/legibility/README.md)

Keys come from ANTHROPIC_API_KEY (Claude) or OPENAI_API_KEY (OpenAI). Gemini is not supported yet.
See docs/probe.md.`;

export const probeCommand: Command = {
  name: 'probe',
  summary: 'measure whether a model reads snapshot pages (needle recall, billed tokens)',
  usage,
  async run(argv, io) {
    const { runProbeCli } = await import('./probe-run.js');
    return runProbeCli(argv, io, process.env);
  },
};
