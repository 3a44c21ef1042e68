/**
 * Cold start of `glyphfold/providers` in a fresh Node process: CPU time (process.cpuUsage, user +
 * system, all threads) of `import()` of the built module, the first `resolveProfile`, the first
 * `bestPageShape`, and a second resolve + shape (the memoised path). Node's own start-up is outside the
 * measured spans. Needs a built `dist/` (`npm run build:ts`).
 *
 * As a script it compares two builds side by side, runs interleaved so machine load hits both alike:
 *   node --import tsx bench/coldstart.ts [--runs N] [--model ID ...] DIST_A [DIST_B]
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

/** CPU milliseconds of each phase of one cold start. */
export interface ColdStartSample {
  importMs: number;
  resolveMs: number;
  shapeMs: number;
  /** Second `resolveProfile` + `bestPageShape` for the same id (memo hits when identities are stable). */
  againMs: number;
  /** import + first resolve + first shape. */
  totalMs: number;
}

const CHILD = `
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const [url, ...models] = JSON.parse(process.argv[1]);
const t0 = cpu();
const m = await import(url);
const t1 = cpu();
const resolved = models.map((id) => m.resolveProfile(id));
const t2 = cpu();
for (const r of resolved) if (r.profile.vision) m.bestPageShape(r.profile);
const t3 = cpu();
for (const id of models) { const p = m.resolveProfile(id).profile; if (p.vision) m.bestPageShape(p); }
const t4 = cpu();
process.stdout.write(JSON.stringify({ importMs: t1 - t0, resolveMs: t2 - t1, shapeMs: t3 - t2, againMs: t4 - t3, totalMs: t3 - t0 }));
`;

/** The default `dist/` of this checkout. */
export const DEFAULT_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');

/** One cold start of `dist`'s providers module in a fresh process, first shape for `models`. */
export function coldStartOnce(dist: string, models: readonly string[]): ColdStartSample {
  const entry = path.join(dist, 'providers', 'index.js');
  if (!existsSync(entry)) throw new Error(`coldstart: ${entry} not found (run npm run build:ts)`);
  const res = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', CHILD, JSON.stringify([pathToFileURL(entry).href, ...models])],
    { encoding: 'utf8' },
  );
  if (res.status !== 0) throw new Error(`coldstart: child exited ${String(res.status)}: ${res.stderr}`);
  return JSON.parse(res.stdout) as ColdStartSample;
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Medians per phase over `runs` cold starts. */
export function summarize(samples: ColdStartSample[]): ColdStartSample {
  const keys = ['importMs', 'resolveMs', 'shapeMs', 'againMs', 'totalMs'] as const;
  const out = {} as ColdStartSample;
  for (const k of keys) out[k] = Number(median(samples.map((s) => s[k])).toFixed(2));
  return out;
}

const isMain =
  process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]);
if (isMain) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { runs: { type: 'string', default: '15' }, model: { type: 'string', multiple: true } },
  });
  const dists = positionals.length > 0 ? positionals.map((d) => path.resolve(d)) : [DEFAULT_DIST];
  const models = values.model ?? ['claude-sonnet-4-6'];
  const runs = Number(values.runs);
  const samples: ColdStartSample[][] = dists.map(() => []);
  for (let i = 0; i < runs; i++) dists.forEach((d, j) => samples[j]!.push(coldStartOnce(d, models)));
  const rows = dists.map((d, j) => ({ dist: d, ...summarize(samples[j]!) }));
  console.log(`models: ${models.join(' ')}; ${runs} runs each, interleaved; medians of CPU ms`);
  console.table(rows);
  if (rows.length === 2) {
    const a = rows[0]!;
    const b = rows[1]!;
    console.log(
      `ratio B/A: import ${(b.importMs / a.importMs).toFixed(3)}, resolve ${(b.resolveMs / a.resolveMs).toFixed(3)}, ` +
        `shape ${(b.shapeMs / a.shapeMs).toFixed(3)}, again ${(b.againMs / a.againMs).toFixed(3)}, total ${(b.totalMs / a.totalMs).toFixed(3)}`,
    );
  }
}
