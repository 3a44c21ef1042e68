/**
 * `npm run bench [-- --json] [--suite NAME ...] [--quick]`
 *
 * Runs the suites in `bench/suites.ts` and prints a table, or with `--json` one JSON document
 * `{"machine": {...}, "results": [...]}` on stdout (progress on stderr).
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { SUITES } from './suites.js';
import type { BenchResult } from './suite.js';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    suite: { type: 'string', multiple: true },
  },
});

const wanted = values.suite ?? [];
const unknown = wanted.filter((name) => !SUITES.some((s) => s.name === name));
if (unknown.length > 0) {
  process.stderr.write(
    `bench: unknown suite(s) ${unknown.join(', ')}; known: ${SUITES.map((s) => s.name).join(', ')}\n`,
  );
  process.exit(2);
}

const machine = {
  node: process.version,
  platform: `${os.platform()} ${os.arch()}`,
  cpu: os.cpus()[0]?.model ?? 'unknown',
  cores: os.cpus().length,
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  date: new Date().toISOString(),
};

const results: BenchResult[] = [];
for (const suite of SUITES) {
  if (wanted.length > 0 && !wanted.includes(suite.name)) continue;
  process.stderr.write(`bench: ${suite.name}…\n`);
  results.push(
    ...(await suite.run({ quick: values.quick, log: (line) => process.stderr.write(`  ${line}\n`) })),
  );
}

if (values.json) {
  process.stdout.write(JSON.stringify({ machine, results }, null, 2) + '\n');
} else {
  process.stdout.write(`${machine.cpu}, ${machine.cores} cores, node ${machine.node}\n`);
  console.table(results);
}
