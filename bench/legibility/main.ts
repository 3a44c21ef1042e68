/**
 * `npm run legibility -- <command>`:
 *   kit --variants 4x6,6x10,… --readers 6 --seed 1 --out DIR
 *   score DIR --reader-model ID --how TEXT --date ISO --out FILE.json
 *   rescore FILE.json [--out FILE.json]
 *   report [--json] [--dir DIR]
 *   density [--json] [--dir DIR]
 * See bench/legibility/README.md.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { makeKit } from './kit.js';
import { density, densityMarkdown, markdown, report, RESULTS_DIR } from './report.js';
import { rescore, scoreKit, type Results } from './score.js';
import { parseSource, tableFromResults } from './table.js';
import { validateLegibility } from '../../src/providers/legibility.js';

const USAGE = `usage: npm run legibility -- kit --variants A,B,… --readers N --seed S --out DIR [--per-reader K] [--flow-width PX | --flow-cols N] [--lines-cols N]
       npm run legibility -- score DIR --reader-model ID --how TEXT --date ISO --out FILE.json [--only-readers 1,2] [--notes FILE]
       npm run legibility -- rescore FILE.json [--out FILE.json]
       npm run legibility -- table RESULTS.json[:lines|:flow] … --family claude [--base TABLE.json] --out TABLE.json
       npm run legibility -- report [RESULTS.json[:lines|:flow] …] [--json] [--dir DIR]
       npm run legibility -- density [--json] [--dir DIR]`;

function fail(message: string): never {
  process.stderr.write(`legibility: ${message}\n${USAGE}\n`);
  process.exit(2);
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    variants: { type: 'string' },
    readers: { type: 'string' },
    seed: { type: 'string' },
    out: { type: 'string' },
    'reader-model': { type: 'string' },
    how: { type: 'string' },
    date: { type: 'string' },
    json: { type: 'boolean', default: false },
    dir: { type: 'string' },
    'only-readers': { type: 'string' },
    'per-reader': { type: 'string' },
    notes: { type: 'string' },
    family: { type: 'string' },
    base: { type: 'string' },
    'flow-width': { type: 'string' },
    'flow-cols': { type: 'string' },
    'lines-cols': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

const int = (name: string, raw: string | undefined, fallback?: number): number => {
  if (raw === undefined) {
    if (fallback === undefined) fail(`--${name} is required`);
    return fallback;
  }
  const n = Number(raw);
  if (!Number.isInteger(n)) fail(`--${name}: expected an integer, found '${raw}'`);
  return n;
};

const write = (file: string, data: unknown) => {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(data, null, 2) + '\n');
};

const summary = (r: Results) =>
  Object.entries(r.aggregates.byVariant)
    .map(
      ([v, a]) =>
        `${v}: CER ${(a.cer * 100).toFixed(2)}% over ${a.chars} chars, needles ${a.needles.all.found}/${a.needles.all.total}`,
    )
    .join('\n');

if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const [command, ...rest] = positionals;
try {
  switch (command) {
    case 'kit': {
      if (!values.variants) fail('kit: --variants is required (e.g. 4x6,5x8,6x10)');
      if (!values.out) fail('kit: --out DIR is required');
      const key = await makeKit({
        variants: values.variants
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
        readers: int('readers', values.readers),
        seed: int('seed', values.seed, 1),
        out: values.out,
        ...(values['per-reader'] ? { perReader: int('per-reader', values['per-reader']) } : {}),
        ...(values['flow-width'] ? { flowWidth: int('flow-width', values['flow-width']) } : {}),
        ...(values['flow-cols'] ? { flowCols: int('flow-cols', values['flow-cols']) } : {}),
        ...(values['lines-cols'] ? { linesCols: int('lines-cols', values['lines-cols']) } : {}),
      });
      const split = key.images.filter((i) => i.parts.length > 1).length;
      process.stdout.write(
        `kit: ${key.texts.length} texts × ${key.variants.length} variants, ${key.readers} readers, ${key.images.length} images` +
          `${split ? ` (${split} split into parts)` : ''} → ${values.out}\n`,
      );
      break;
    }
    case 'score': {
      const dir = rest[0] ?? fail('score: the kit directory is required');
      const model = values['reader-model'] ?? fail('score: --reader-model is required');
      const how = values.how ?? fail('score: --how is required (how the reader saw the images)');
      const date = values.date ?? new Date().toISOString();
      if (Number.isNaN(Date.parse(date))) fail(`score: --date: expected an ISO date, found '${date}'`);
      const out = values.out ?? fail('score: --out FILE.json is required (e.g. bench/legibility/results/…)');
      const only = values['only-readers']?.split(',').map((r) => int('only-readers', r.trim()));
      const scored = scoreKit(dir, { model, how, date }, only);
      const notes = values.notes
        ? readFileSync(values.notes, 'utf8')
            .split('\n')
            .map((l) => l.trim())
            .filter(Boolean)
        : undefined;
      const results = notes ? { ...scored, notes } : scored;
      write(out, results);
      process.stdout.write(`${summary(results)}\n→ ${out}\n`);
      break;
    }
    case 'table': {
      if (rest.length === 0) fail('table: at least one results file is required');
      const family = values.family ?? fail("table: --family is required (the readers' family, e.g. claude)");
      const out =
        values.out ?? fail('table: --out TABLE.json is required (e.g. src/providers/legibility.json)');
      const base = values.base
        ? validateLegibility(JSON.parse(readFileSync(values.base, 'utf8')), values.base)
        : undefined;
      const table = tableFromResults(rest.map(parseSource), family, base);
      write(out, { version: 1, ...table });
      for (const e of table.variants) {
        const m = e.cer[family];
        if (m)
          process.stdout.write(
            `${e.variant}: CER ${(m.cer * 100).toFixed(2)}% over ${m.chars} chars, ${m.readers} readers\n`,
          );
      }
      process.stdout.write(`→ ${out}\n`);
      break;
    }
    case 'rescore': {
      const file = rest[0] ?? fail('rescore: the results file is required');
      const before = JSON.parse(readFileSync(file, 'utf8')) as Results;
      const after = rescore(before);
      const same =
        JSON.stringify(after.images.map((i) => i.score)) ===
        JSON.stringify(before.images.map((i) => i.score));
      process.stdout.write(
        `${summary(after)}\nstored scores ${same ? 'match' : 'DIFFER from'} the re-scored ones\n`,
      );
      if (values.out) write(values.out, after);
      break;
    }
    case 'report': {
      const rows = report(values.dir ?? RESULTS_DIR, rest.length ? rest.map(parseSource) : undefined);
      if (values.json) process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
      else process.stdout.write(rows.length ? markdown(rows) + '\n' : 'report: no results files yet\n');
      break;
    }
    case 'density': {
      const rows = density(values.dir ?? RESULTS_DIR);
      if (values.json) process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
      else
        process.stdout.write(rows.length ? densityMarkdown(rows) + '\n' : 'density: no results files yet\n');
      break;
    }
    default:
      fail(command ? `unknown command '${command}'` : 'a command is required');
  }
} catch (err) {
  process.stderr.write(`legibility: ${(err as Error).message}\n`);
  process.exit(1);
}
