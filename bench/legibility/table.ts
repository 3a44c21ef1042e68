/**
 * Results → the legibility table the page choice reads (src/providers/legibility.json, format in
 * src/providers/legibility.ts). Per variant, the readings of every given results file are pooled:
 * CER = all edits / all characters, per content kind likewise; readers = distinct (file, reader) pairs.
 * A file may be limited to one layout (`round1.json:lines`) when its other pages were drawn in a
 * format the renderer no longer ships (e.g. an older flow width), so a table only ever describes the
 * pages that are drawn today. Measurements of variants the results do not cover are kept from `base`.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import {
  mergeLegibility,
  validateLegibility,
  type LegibilityMeasurement,
  type LegibilityTable,
} from '../../src/providers/legibility.js';
import { parseVariant, type Layout } from '../../src/render/index.js';
import { RESULTS_FORMAT, type Results } from './score.js';

export interface TableSource {
  file: string;
  /** Only variants of this layout count from this file. */
  layout?: Layout;
}

/** `path[:lines|:flow]` → a source. */
export function parseSource(spec: string): TableSource {
  const m = /^(.*?)(?::(lines|flow))?$/.exec(spec)!;
  return m[2] ? { file: m[1]!, layout: m[2] as Layout } : { file: m[1]! };
}

export function tableFromResults(
  sources: readonly TableSource[],
  family: string,
  base: LegibilityTable = { variants: [] },
): LegibilityTable {
  interface Pool {
    chars: number;
    edits: number;
    readers: Set<string>;
    files: Set<string>;
    date: string;
    kinds: Map<string, { chars: number; edits: number }>;
  }
  const pools = new Map<string, Pool>();
  for (const src of sources) {
    const r = JSON.parse(readFileSync(src.file, 'utf8')) as Results;
    if (r.format !== RESULTS_FORMAT) {
      throw new Error(`table: ${src.file}: format expected '${RESULTS_FORMAT}', found '${String(r.format)}'`);
    }
    const date = r.reader.date.slice(0, 10);
    for (const im of r.images) {
      if (src.layout && parseVariant(im.variant).layout !== src.layout) continue;
      if (im.score.missing) continue;
      let p = pools.get(im.variant);
      if (!p) {
        p = { chars: 0, edits: 0, readers: new Set(), files: new Set(), date, kinds: new Map() };
        pools.set(im.variant, p);
      }
      p.chars += im.score.chars;
      p.edits += im.score.distance;
      p.readers.add(`${src.file}#${im.reader}`);
      p.files.add(basename(src.file));
      if (date > p.date) p.date = date;
      for (const [kind, t] of Object.entries(im.score.byKind)) {
        const k = p.kinds.get(kind) ?? { chars: 0, edits: 0 };
        k.chars += t.chars;
        k.edits += t.edits;
        p.kinds.set(kind, k);
      }
    }
  }
  const round = (x: number) => Number(x.toFixed(4));
  const measured: LegibilityTable = {
    variants: [...pools].map(([variant, p]) => {
      const m: LegibilityMeasurement = {
        cer: round(p.edits / p.chars),
        chars: p.chars,
        readers: p.readers.size,
        date: p.date,
        source: `bench/legibility/results: ${[...p.files].sort().join(', ')}`,
        kinds: Object.fromEntries(
          [...p.kinds]
            .filter(([, k]) => k.chars > 0)
            .sort()
            .map(([kind, k]) => [kind, round(k.edits / k.chars)]),
        ),
      };
      return { variant, cer: { [family]: m } };
    }),
  };
  const merged = mergeLegibility(base, measured);
  if (base.notes) merged.notes = base.notes;
  return validateLegibility(merged);
}
