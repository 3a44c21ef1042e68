/**
 * A reading kit: V texts × V variants in a Latin square over R readers. Reader r reads text t in
 * variant (t + r) mod V, so each reader reads every text once and every variant once; with
 * `perReader` K < V each reader gets a balanced share of K texts instead (KitOptions). Each reader
 * folder holds only the PNGs (random neutral names) and INSTRUCTIONS.md; the key and the sources stay
 * outside the reader folders.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rng } from '../../src/probe/random.js';
import { render } from '../../src/render/index.js';
import { generateTexts, type ReadingText } from './generate.js';
import { MAX_PAGE_HEIGHT, benchVariant, variantOptions, variantRows, type BenchVariant } from './variant.js';

export const KEY_FORMAT = 'glyphfold-legibility-key';

export interface KitImage {
  /** Neutral name; the PNG files are `<name>.png`, or `<name>-a.png`, `<name>-b.png`, … */
  name: string;
  text: string;
  variant: string;
  reader: number;
  /** File names in reading order (one unless the page was split). */
  parts: string[];
  width: number;
  /** Height of each part in pixels. */
  heights: number[];
}

export interface KitKey {
  format: typeof KEY_FORMAT;
  version: 1;
  seed: number;
  variants: string[];
  readers: number;
  texts: ReadingText[];
  images: KitImage[];
}

/** Variant index of reader `reader` for text `text` among `v` variants: the Latin square. */
export const latin = (text: number, reader: number, v: number): number => (text + reader) % v;

const NAME_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** The instructions every reader gets, word for word the same for every reader and variant. */
export function instructions(anySplit: boolean): string {
  return `# Reading task

Each PNG image in this folder shows a text drawn in a small bitmap font. Transcribe every image
exactly, character for character, into a plain-text file beside it with the same name and the
extension \`.txt\` (\`q7f3k2.png\` → \`q7f3k2.txt\`).

- Preserve line breaks, blank lines and leading spaces. Trailing spaces do not matter.
- Write \`?\` for each character you cannot read.
- Do not guess from language, context or what looks likely, and do not fix apparent typos: the texts
  are made of invented words, names and numbers on purpose. Write what the pixels show.
- Use no tool that reads the text for you (no OCR); view the images at their native size or zoomed.
- Accuracy matters, speed does not: take the time to read every character. Every text is different:
  never copy a line, a layout or a value from one image into another. What you cannot read is \`?\`.

## Notation

- A row that ends with a white-on-black hook (↵-like) in its last column continues on the next row:
  join the two rows into one line and do not write the mark.
- In some images a pilcrow drawn white on black (an inverted ¶ cell) inside a row means a line
  break: write a newline, not the mark. In those images every row holds the same number of character cells and the end of a
  row is not a line break: the text simply continues on the next row (a word may be split across
  the row end: join it). In those images a small centred dot (·) stands for one space: it marks the
  spaces that indent a line and the spaces at the right end of a row. Write a space for each dot.
- Inverted (white-on-black) runs \`U+XXXX\` stand for one character by its code point: write that
  character, or the \`U+XXXX\` text itself if you are unsure which character it is.
${
  anySplit
    ? `- Some texts are cut into parts: \`name-a.png\`, \`name-b.png\`, … are one text, top to bottom.
  Transcribe each part into its own file (\`name-a.txt\`, \`name-b.txt\`, …).
`
    : ''
}`;
}

export interface KitOptions {
  variants: string[];
  readers: number;
  seed: number;
  out: string;
  /**
   * Texts each reader gets (default: all V). Fewer keeps a reader careful: reader r reads the texts
   * t ≡ r (mod V / perReader), each in variant (t + r) mod V — still one variant per text per reader
   * and every variant once at most per reader. perReader must divide V.
   */
  perReader?: number;
  /** Widest flow page in pixels (default FLOW_MAX_WIDTH). */
  flowWidth?: number;
  /** Columns of a flow page instead (e.g. 84, as lines pages), whatever its width in pixels. */
  flowCols?: number;
  /** Columns of a lines page (default 84, so no generated line wraps; fewer makes long lines wrap). */
  linesCols?: number;
}

/** Builds the kit in `out` and returns its key (also written to `out/key.json`). */
export async function makeKit(options: KitOptions): Promise<KitKey> {
  const { readers, seed, out } = options;
  if (!Number.isInteger(readers) || readers < 1)
    throw new RangeError(`readers must be a positive integer, found ${readers}`);
  if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, found ${seed}`);
  if (options.variants.length < 1) throw new RangeError('variants: expected at least one variant id');
  const variants: BenchVariant[] = options.variants.map((id) =>
    benchVariant(id, options.flowWidth, options.flowCols, options.linesCols),
  );
  const ids = variants.map((v) => v.id);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup) throw new RangeError(`variants: '${dup}' is listed twice`);
  if (existsSync(out) && readdirSync(out).length > 0) {
    throw new Error(`kit: ${out} is not empty; a kit goes into a new or empty directory`);
  }
  const V = variants.length;
  const perReader = options.perReader ?? V;
  if (!Number.isInteger(perReader) || perReader < 1 || V % perReader !== 0) {
    throw new RangeError(`perReader must divide the ${V} variants, found ${String(perReader)}`);
  }
  const step = V / perReader;
  const texts = generateTexts(seed, V);
  // Names from their own stream, so they carry nothing of text, variant or reader order.
  const names = rng((seed ^ 0x5bd1e995) >>> 0);
  const used = new Set<string>();
  const newName = () => {
    for (;;) {
      const n = Array.from({ length: 6 }, () => names.pick([...NAME_ALPHABET])).join('');
      if (!used.has(n) && /[a-z]/.test(n[0]!)) {
        used.add(n);
        return n;
      }
    }
  };
  mkdirSync(join(out, 'texts'), { recursive: true });
  for (const t of texts) writeFileSync(join(out, 'texts', `${t.id}.txt`), t.text + '\n');
  const images: KitImage[] = [];
  let anySplit = false;
  for (let reader = 0; reader < readers; reader++) {
    const dir = join(out, `reader-${reader + 1}`);
    mkdirSync(dir, { recursive: true });
    for (let t = 0; t < V; t++) {
      if ((t - reader) % step !== 0) continue;
      const v = variants[latin(t, Math.floor(reader / step), V)]!;
      const text = texts[t]!;
      const rows = variantRows(text.text, v);
      // Parts of equal height (a split text's last part is then at most one row short of full),
      // each at most MAX_PAGE_HEIGHT: ceil(rows / parts) ≤ maxRows since maxRows is an integer.
      const maxRows = Math.floor(MAX_PAGE_HEIGHT / v.pitch.height);
      const pageRows = Math.ceil(rows / Math.ceil(rows / maxRows));
      const shape = { width: v.cols * v.pitch.width, height: Math.max(2, pageRows) * v.pitch.height };
      const result = await render(text.text, { shape, ...variantOptions(v) });
      const expected = Math.ceil(rows / Math.max(2, pageRows));
      if (result.pages.length !== expected) {
        throw new Error(`kit: ${text.id} in ${v.id} took ${result.pages.length} pages, expected ${expected}`);
      }
      const name = newName();
      const split = result.pages.length > 1;
      anySplit ||= split;
      const parts = result.pages.map((_, i) =>
        split ? `${name}-${String.fromCharCode(97 + i)}.png` : `${name}.png`,
      );
      result.pages.forEach((p, i) => writeFileSync(join(dir, parts[i]!), p.png));
      images.push({
        name,
        text: text.id,
        variant: v.id,
        reader: reader + 1,
        parts,
        width: shape.width,
        heights: result.pages.map(() => shape.height),
      });
    }
  }
  for (let reader = 0; reader < readers; reader++) {
    writeFileSync(join(out, `reader-${reader + 1}`, 'INSTRUCTIONS.md'), instructions(anySplit));
  }
  const key: KitKey = { format: KEY_FORMAT, version: 1, seed, variants: ids, readers, texts, images };
  writeFileSync(join(out, 'key.json'), JSON.stringify(key, null, 2) + '\n');
  return key;
}
