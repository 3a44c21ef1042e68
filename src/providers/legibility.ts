/**
 * The legibility table: measured character error rates (CER) of snapshot page variants, per reader
 * family, each with its provenance. Data in `legibility.json` (seeded with the blind readings of
 * shared/LEGIBILITY.md), validated on load like the profiles; users add their own measurements (their
 * probe's results) as a table of the same format, which takes precedence per variant and family.
 *
 * The page choice (`readableVariants`) is a pure function of (table, reader family, floor): the
 * variants whose measured CER for the family is within the floor, or, when none is, the most legible
 * one measured, with a note that says so. Edge-safe: the JSON is imported, nothing reads a file.
 */
import builtInJson from './legibility.json' with { type: 'json' };
import { isObject, show } from './validate.js';
import { parseVariant, variantId } from '../render/variant.js';

/** One measurement of one variant by one reader family. */
export interface LegibilityMeasurement {
  /** Character error rate: edit distance / characters, 0–1. */
  cer: number;
  /** Characters read to measure it (all readers together or per reader: as the source says). */
  chars: number;
  /** Distinct readers (model instances or people). */
  readers: number;
  /** When it was measured, YYYY-MM-DD. */
  date: string;
  /** Where the readings are: a results file, a document, a probe run. */
  source: string;
  /** CER per content kind (code, prose, packages, kernel-log, …), when measured. */
  kinds?: Record<string, number>;
}

/** One variant (canonical id, docs/renderer.md) and its measurements, reader families as keys. */
export interface LegibilityEntry {
  variant: string;
  cer: Record<string, LegibilityMeasurement>;
}

export interface LegibilityTable {
  variants: LegibilityEntry[];
  notes?: string[];
}

/** Bad legibility data: `path` is where (e.g. `legibility.json.variants[2].cer.claude.cer`). */
export class LegibilityDataError extends Error {
  override name = 'LegibilityDataError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

/** The default floor: a page is admissible when its measured CER for the reader family is ≤ 1%. */
export const DEFAULT_MAX_CER = 0.01;

/** Reader family names: what profiles' `readerFamily` holds and the table's `cer` keys. */
export const READER_FAMILY_PATTERN = /^[a-z0-9][a-z0-9-]*$/;

function fail(path: string, expected: string, found: unknown): never {
  throw new LegibilityDataError(path, `expected ${expected}, found ${show(found)}`);
}

function onlyKeys(o: Record<string, unknown>, allowed: readonly string[], path: string): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k))
      throw new LegibilityDataError(`${path}.${k}`, `unknown field (allowed: ${allowed.join(', ')})`);
  }
}

function rate(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1)
    fail(path, 'a rate from 0 to 1 (0.016 for 1.6%)', v);
  return v;
}

function count(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) fail(path, 'a positive integer', v);
  return v;
}

function text(v: unknown, path: string): string {
  if (typeof v !== 'string' || v.length === 0) fail(path, 'a non-empty string', v);
  return v;
}

function measurement(v: unknown, path: string): LegibilityMeasurement {
  if (!isObject(v)) fail(path, 'an object { cer, chars, readers, date, source, kinds? }', v);
  onlyKeys(v, ['cer', 'chars', 'readers', 'date', 'source', 'kinds'], path);
  const m: LegibilityMeasurement = {
    cer: rate(v.cer, `${path}.cer`),
    chars: count(v.chars, `${path}.chars`),
    readers: count(v.readers, `${path}.readers`),
    date: text(v.date, `${path}.date`),
    source: text(v.source, `${path}.source`),
  };
  if (!/^\d{4}-\d{2}-\d{2}$/.test(m.date)) fail(`${path}.date`, 'a date YYYY-MM-DD', m.date);
  if (v.kinds !== undefined) {
    if (!isObject(v.kinds)) fail(`${path}.kinds`, 'an object of content kind → CER', v.kinds);
    const kinds: Record<string, number> = {};
    for (const k of Object.keys(v.kinds).sort()) kinds[k] = rate(v.kinds[k], `${path}.kinds.${k}`);
    m.kinds = kinds;
  }
  return m;
}

/**
 * Validates a parsed legibility table `{ version?: 1, notes?, variants: [{ variant, cer: { family:
 * { cer, chars, readers, date, source, kinds? } } }] }`. Variant ids must be canonical and drawable by
 * this renderer; each variant appears once. Throws {@link LegibilityDataError} naming the field.
 */
export function validateLegibility(json: unknown, origin = 'legibility table'): LegibilityTable {
  if (!isObject(json)) fail(origin, 'an object { version: 1, variants: [...] }', json);
  onlyKeys(json, ['version', 'notes', 'variants'], origin);
  if (json.version !== undefined && json.version !== 1) fail(`${origin}.version`, '1', json.version);
  const table: LegibilityTable = { variants: [] };
  if (json.notes !== undefined) {
    if (!Array.isArray(json.notes)) fail(`${origin}.notes`, 'an array of strings', json.notes);
    table.notes = json.notes.map((n, i) => text(n, `${origin}.notes[${i}]`));
  }
  if (!Array.isArray(json.variants))
    fail(`${origin}.variants`, 'an array of { variant, cer }', json.variants);
  const seen = new Set<string>();
  json.variants.forEach((raw, i) => {
    const at = `${origin}.variants[${i}]`;
    if (!isObject(raw)) fail(at, 'an object { variant, cer }', raw);
    onlyKeys(raw, ['variant', 'cer'], at);
    const id = text(raw.variant, `${at}.variant`);
    let canonical: string;
    try {
      canonical = variantId(parseVariant(id));
    } catch (err) {
      throw new LegibilityDataError(`${at}.variant`, (err as Error).message);
    }
    if (canonical !== id) fail(`${at}.variant`, `the canonical id '${canonical}'`, id);
    if (seen.has(id))
      throw new LegibilityDataError(`${at}.variant`, `'${id}' appears twice: merge its entries`);
    seen.add(id);
    if (!isObject(raw.cer)) fail(`${at}.cer`, 'an object of reader family → measurement', raw.cer);
    const cer: Record<string, LegibilityMeasurement> = {};
    for (const family of Object.keys(raw.cer).sort()) {
      if (!READER_FAMILY_PATTERN.test(family))
        fail(`${at}.cer (key)`, 'a reader family: lower case, digits and dashes', family);
      cer[family] = measurement(raw.cer[family], `${at}.cer.${family}`);
    }
    table.variants.push({ variant: id, cer });
  });
  return table;
}

let builtIn: LegibilityTable | undefined;

/** The shipped table (`legibility.json`), validated on first use. */
export function builtInLegibility(): LegibilityTable {
  return (builtIn ??= validateLegibility(builtInJson, 'legibility.json'));
}

/**
 * `base` with the measurements of `over` laid on top: per (variant, family), a later table's
 * measurement replaces an earlier one; variants new to `base` are appended in their order.
 */
export function mergeLegibility(base: LegibilityTable, ...over: LegibilityTable[]): LegibilityTable {
  const out = new Map<string, Record<string, LegibilityMeasurement>>();
  for (const t of [base, ...over])
    for (const e of t.variants) out.set(e.variant, { ...out.get(e.variant), ...e.cer });
  return {
    variants: [...out].map(([variant, cer]) => ({
      variant,
      cer: Object.fromEntries(
        Object.keys(cer)
          .sort()
          .map((f) => [f, cer[f]!]),
      ),
    })),
  };
}

/** The measurement of `variant` by `family`, if any. */
export function measuredCer(
  table: LegibilityTable,
  variant: string,
  family: string,
): LegibilityMeasurement | undefined {
  return table.variants.find((e) => e.variant === variant)?.cer[family];
}

/** A variant the page choice may use, with the measurement that admits it. */
export interface ReadableVariant {
  variant: string;
  /** The reader family the measurement is for (another family's when `fallback` is 'any-family'). */
  family: string;
  measurement: LegibilityMeasurement;
}

export interface LegibilitySelection {
  /** Admissible variants, most legible first (ties by id). */
  variants: ReadableVariant[];
  /** The reader family asked for (undefined: the profile names none). */
  family: string | undefined;
  maxCer: number;
  /**
   * Set when no variant is measured within the floor: 'family' = the most legible variant measured
   * for the family; 'any-family' = the family has no measurement, the most legible for any family.
   */
  fallback?: 'family' | 'any-family';
  /** In words, for the report, when `fallback` is set. */
  note?: string;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

function byLegibility(a: ReadableVariant, b: ReadableVariant): number {
  return (
    a.measurement.cer - b.measurement.cer || (a.variant < b.variant ? -1 : a.variant > b.variant ? 1 : 0)
  );
}

/**
 * The variants a page for reader `family` may use under the floor `maxCer` (default 1%): every
 * variant measured for the family at CER ≤ maxCer. If none is, the family's most legible measured
 * variant; if the family has no measurement at all, the most legible variant measured for any family.
 * Both fallbacks say so in `note`. Throws when the table holds no measurement at all.
 */
export function readableVariants(
  table: LegibilityTable,
  family: string | undefined,
  maxCer: number = DEFAULT_MAX_CER,
): LegibilitySelection {
  if (typeof maxCer !== 'number' || !Number.isFinite(maxCer) || maxCer < 0 || maxCer > 1) {
    throw new RangeError(`maxCer must be a rate from 0 to 1 (0.01 for 1%), found ${String(maxCer)}`);
  }
  const own: ReadableVariant[] = [];
  const any: ReadableVariant[] = [];
  for (const e of table.variants) {
    for (const [f, m] of Object.entries(e.cer)) {
      const r = { variant: e.variant, family: f, measurement: m };
      any.push(r);
      if (f === family) own.push(r);
    }
  }
  own.sort(byLegibility);
  any.sort(byLegibility);
  const within = own.filter((r) => r.measurement.cer <= maxCer);
  if (within.length) return { variants: within, family, maxCer };
  const describe = (r: ReadableVariant) =>
    `${r.variant} (CER ${pct(r.measurement.cer)} for ${r.family}, ${r.measurement.source})`;
  if (own.length) {
    const best = own[0]!;
    return {
      variants: [best],
      family,
      maxCer,
      fallback: 'family',
      note: `no page variant is measured within CER ${pct(maxCer)} for ${family} readers; using the most legible one measured: ${describe(best)}`,
    };
  }
  const best = any[0];
  if (!best) throw new Error('legibility table holds no measurement: cannot choose a page variant');
  return {
    variants: [best],
    family,
    maxCer,
    fallback: 'any-family',
    note: `${family === undefined ? 'the model names no reader family' : `no legibility measurement for ${family} readers`}; using the most legible variant measured for any family: ${describe(best)}`,
  };
}
