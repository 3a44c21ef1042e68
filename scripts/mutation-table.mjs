#!/usr/bin/env node
// Prints the mutation score per module as a markdown table, from Stryker's JSON reports under
// reports/mutation/ (the full run's mutation.json and any one-module runs in modules/*/); for each
// module the newest report wins. Score = (killed + timeout) / (all − ignored − compile errors), as
// Stryker counts it; no-coverage mutants count as survivors.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = 'reports/mutation';
const minAt = process.argv.indexOf('--min');
const min = minAt >= 0 ? Number(process.argv[minAt + 1]) : undefined;
const reports = [];
const add = (file) => existsSync(file) && reports.push({ file, time: statSync(file).mtimeMs });
add(join(root, 'mutation.json'));
if (existsSync(join(root, 'modules')))
  for (const d of readdirSync(join(root, 'modules'))) add(join(root, 'modules', d, 'mutation.json'));
if (reports.length === 0) {
  console.error(`no report in ${root}/: run \`npm run mutate\` first`);
  process.exit(1);
}
reports.sort((a, b) => a.time - b.time);

const rows = new Map();
for (const { file, time } of reports) {
  const json = JSON.parse(readFileSync(file, 'utf8'));
  for (const [name, f] of Object.entries(json.files)) {
    const n = {
      Killed: 0,
      Timeout: 0,
      Survived: 0,
      NoCoverage: 0,
      Ignored: 0,
      CompileError: 0,
      RuntimeError: 0,
    };
    for (const m of f.mutants) n[m.status] = (n[m.status] ?? 0) + 1;
    rows.set(relative(process.cwd(), join(process.cwd(), name)), { n, date: new Date(time) });
  }
}
const order = [...rows.keys()].sort();
const below = [];
let killedAll = 0;
let validAll = 0;
console.log('| module | score | killed | timeout | survived | no cov | errors | date |');
console.log('|---|---:|---:|---:|---:|---:|---:|---|');
for (const name of order) {
  const { n, date } = rows.get(name);
  const killed = n.Killed + n.Timeout;
  const valid = killed + n.Survived + n.NoCoverage;
  killedAll += killed;
  validAll += valid;
  const score = valid === 0 ? '—' : `${((100 * killed) / valid).toFixed(1)}%`;
  if (min !== undefined && valid > 0 && (100 * killed) / valid < min) below.push(name);
  console.log(
    `| ${name.replace(/^src\//, '')} | ${score} | ${n.Killed} | ${n.Timeout} | ${n.Survived} | ${n.NoCoverage} | ${n.CompileError + n.RuntimeError} | ${date.toISOString().slice(0, 10)} |`,
  );
}
console.log(`| **all** | **${((100 * killedAll) / validAll).toFixed(1)}%** | | | | | | |`);
if (below.length) {
  console.error(`below ${min}%: ${below.join(', ')}`);
  process.exit(1);
}
