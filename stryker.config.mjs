// Mutation testing of the core modules (issue 18): `npm run mutate` runs them all, `npm run mutate --
// --mutate src/x.ts` one. Reports go to reports/mutation/ (gitignored); scripts/mutation-table.mjs prints
// the score per module. See README "Mutation score".
import { basename } from 'node:path';
import process from 'node:process';

/** The core modules: the ones whose bugs lose or corrupt data, or send a request that does not fit. */
export const CORE = [
  'src/views/pairing.ts',
  'src/compaction/ladder.ts',
  'src/compaction/rungs.ts',
  'src/compaction/snapshot.ts',
  'src/store/logfile.ts',
  'src/store/workspace.ts',
  'src/store/lock.ts',
  'src/render/normalize.ts',
  'src/render/decode.ts',
  'src/providers/image-tokens.ts',
  'src/serverless/handler.ts',
];

// A run over some modules (`--mutate a.ts,b.ts`) keeps its own incremental file and reports under
// reports/mutation/modules/<names>/, so it neither discards the full run's results nor is mistaken for
// them; the table script takes the newest result per module.
const i = process.argv.indexOf('--mutate');
const only = i >= 0 ? process.argv[i + 1] : undefined;
const out =
  only === undefined
    ? 'reports/mutation'
    : `reports/mutation/modules/${only
        .split(',')
        .map((f) => basename(f).replace(/\.ts$/, ''))
        .join('+')}`;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  // Only the test files that import a mutated module run, and per mutant only the tests that reach it:
  // the machine has 2 cores and the whole suite takes ~45 s.
  vitest: { configFile: 'vitest.mutate.config.ts', related: true },
  coverageAnalysis: 'perTest',
  // Static mutants (module-level constants) would need the whole related suite per mutant; skipped.
  ignoreStatic: true,
  // Results are reused for unchanged code and tests. The incremental file is NOT committed: it is
  // several MB of JSON that every test edit rewrites, it conflicts on every merge, and a stale one is
  // only a slower run, never a wrong score (Stryker re-runs whatever changed).
  incremental: true,
  incrementalFile: `${out}/stryker-incremental.json`,
  concurrency: 2,
  timeoutMS: 5_000,
  mutate: CORE,
  ignorePatterns: ['reports', 'out', '.bench', '.scratch', 'coverage'],
  reporters: ['html', 'json', 'clear-text', 'progress'],
  htmlReporter: { fileName: `${out}/index.html` },
  jsonReporter: { fileName: `${out}/mutation.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: false },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
