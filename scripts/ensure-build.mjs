/**
 * `node scripts/ensure-build.mjs` (before `npm start`, `npm test`, `npm run bench`, …): runs the build
 * steps whose outputs are missing or older than their inputs, and nothing else.
 *
 * Why: the build runs at `prepack` (what `npm pack` / `npm publish` ship), not at `prepare`, so that
 * installing the package runs no script of ours. A fresh clone's `npm install` therefore builds
 * nothing, and the scripts that need `dist/` build it on first use; after that a run with nothing
 * changed only compares modification times (a few hundred files' stats: `--time` prints the cost).
 *
 * Each step lists its inputs (files or folders, walked) and its outputs; a step runs when an output is
 * missing or the newest input is newer than the oldest output. Steps run in order, so a font change
 * regenerates the atlases, which are inputs of the TypeScript step, which then runs too.
 * `--force` runs every step (as `npm run build`, which `prepack` runs, does); `--time` prints what it
 * cost; `--root DIR` works on another checkout.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

// `--root DIR`: another checkout of the same layout (the test runs it on a small fake one).
const rootArg = process.argv.indexOf('--root');
const root = rootArg >= 0 ? process.argv[rootArg + 1] : join(import.meta.dirname, '..');
const started = process.hrtime.bigint();
const cpu = process.cpuUsage();

/** Output files of the fonts step: one atlas per row of fonts/fonts.json, plus the two indexes. */
function fontOutputs() {
  const table = JSON.parse(readFileSync(join(root, 'fonts', 'fonts.json'), 'utf8'));
  return [
    ...table.fonts.map((f) => `src/render/generated/atlas-${f.name}.ts`),
    'src/render/generated/cells.ts',
    'src/render/generated/atlas-sources.ts',
  ];
}

const STEPS = [
  {
    script: 'build:fonts',
    inputs: [
      'fonts',
      'scripts/build-fonts.ts',
      'scripts/lib/fonts.ts',
      'src/render/atlas.ts',
      'src/render/bdf.ts',
      'src/render/tuned.ts',
    ],
    outputs: fontOutputs,
  },
  {
    script: 'build:wasm',
    inputs: ['assembly', 'asconfig.json', 'scripts/embed-wasm.mjs'],
    outputs: () => ['build/glyphfold.wasm', 'src/render/generated/wasm.ts'],
  },
  {
    script: 'build:ts',
    // package.json: the bundles read its dependencies (kept external) and the build scripts.
    inputs: [
      'src',
      'tsconfig.base.json',
      'tsconfig.build.json',
      'scripts/bundle.mjs',
      'scripts/build-inspector.mjs',
      'package.json',
    ],
    // What each entry point loads; tsc rewrites every file it emits, so these date the whole dist/.
    outputs: () => [
      'dist/index.js',
      'dist/index.d.ts',
      'dist/cli/main.js',
      'dist/store/index.js',
      'dist/bundle/node/index.js',
      'dist/bundle/render/index.js',
      'dist/bundle/serverless/index.js',
      'dist/bundle/views/index.js',
      'dist/bundle/compaction/index.js',
      'dist/bundle/transcript/portable.js',
      'dist/bundle/tokens/index.js',
      'dist/inspector/ui/app.js',
      'dist/inspector/ui/app.css',
    ],
  },
];

/** Newest modification time under `path` (a file, or a folder walked), and how many files. */
function newest(path, acc = { mtime: 0, files: 0, path: '' }) {
  const full = join(root, path);
  const st = statSync(full, { throwIfNoEntry: false });
  if (!st) throw new Error(`ensure-build: input ${path} does not exist`);
  if (st.isDirectory()) {
    for (const name of readdirSync(full)) newest(join(path, name), acc);
  } else {
    acc.files++;
    if (st.mtimeMs > acc.mtime) Object.assign(acc, { mtime: st.mtimeMs, path });
  }
  return acc;
}

/** Why a step must run, or undefined when its outputs are newer than all its inputs. */
function reason(step) {
  let oldest = { mtime: Infinity, path: '' };
  for (const path of step.outputs()) {
    const st = statSync(join(root, path), { throwIfNoEntry: false });
    if (!st) return `${path} is missing`;
    if (st.mtimeMs < oldest.mtime) oldest = { mtime: st.mtimeMs, path };
  }
  const acc = { mtime: 0, files: 0, path: '' };
  for (const input of step.inputs) newest(input, acc);
  stats.files += acc.files;
  if (acc.mtime > oldest.mtime) return `${acc.path} is newer than ${oldest.path}`;
  return undefined;
}

const force = process.argv.includes('--force');
const stats = { files: 0, ran: [] };
for (const step of STEPS) {
  const why = force ? '--force' : reason(step);
  if (why === undefined) continue;
  console.log(`ensure-build: npm run ${step.script} (${why})`);
  const r = spawnSync('npm', ['run', '--silent', step.script], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`ensure-build: npm run ${step.script} failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status ?? 1);
  }
  stats.ran.push(step.script);
}
if (process.argv.includes('--time')) {
  const { user, system } = process.cpuUsage(cpu);
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  console.log(
    `ensure-build: ${stats.ran.length ? `ran ${stats.ran.join(', ')}` : 'up to date'}; ${stats.files} inputs ` +
      `stat'ed; ${((user + system) / 1000).toFixed(1)} ms CPU, ${wall.toFixed(1)} ms wall`,
  );
}
