/**
 * Serverless: cold start of the `glyphfold/serverless` entry in a fresh process (import → first page,
 * with Node's own start-up measured beside it), the WASM module size, and the handler's overhead per
 * request against calling `render` directly, side by side in one run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';
import type { BenchContext, BenchResult, BenchSuite } from './suite.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// What `glyphfold/serverless` resolves to (package.json exports): the bundled entry.
const ENTRY = join(ROOT, 'dist/bundle/serverless/index.js');
const WASM = join(ROOT, 'build/glyphfold.wasm');
const MODEL = 'claude-sonnet-4-5';
const TARGET_MS = 50;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts')) {
      newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  return newest;
}

/** The cold-start probe runs the built JS (what users import), so build it when src is newer. */
function ensureBuilt(ctx: BenchContext): void {
  if (existsSync(ENTRY) && statSync(ENTRY).mtimeMs >= newestMtime(join(ROOT, 'src'))) return;
  ctx.log('building dist/ (npm run build:ts: tsc and the bundles) for the cold-start measurement');
  execFileSync('npm', ['run', '-s', 'build:ts'], { cwd: ROOT, stdio: 'inherit' });
}

// Runs in the fresh process. performance.now() counts from the process's time origin, so its value
// at the first line is Node's own start-up, which the target excludes.
const COLD_SCRIPT = `
const nodeStartup = performance.now();
const cpuStart = process.cpuUsage();
// Node loads its Fetch API (undici) on first use of Request; edge runtimes have it built in, so it
// counts as the runtime's start-up, measured and reported on its own.
new Request('http://warm/'); new Response('');
const fetchApi = performance.now() - nodeStartup;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const mod = await import(process.argv[1]);
const imported = performance.now();
const cpu1 = process.cpuUsage();
const response = await mod.handler(new Request('http://bench/v1/render?page=1', {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ text: 'cold start: the first page of a fresh process', model: process.argv[2] }),
}));
const png = new Uint8Array(await response.arrayBuffer());
const done = performance.now();
const cpu2 = process.cpuUsage();
const ms = (a, b) => (b.user + b.system - a.user - a.system) / 1000;
process.stdout.write(JSON.stringify({ nodeStartup, fetchApi, import: imported - t0, firstPage: done - imported,
  nodeStartupCpu: (cpuStart.user + cpuStart.system) / 1000, fetchApiCpu: ms(cpuStart, cpu0), importCpu: ms(cpu0, cpu1), firstPageCpu: ms(cpu1, cpu2),
  status: response.status, bytes: png.length }));
`;

interface ColdRun {
  nodeStartup: number;
  fetchApi: number;
  fetchApiCpu: number;
  /** CPU time (user + system) of each step: on a shared, loaded machine it inflates far less than wall time. */
  nodeStartupCpu: number;
  importCpu: number;
  firstPageCpu: number;
  import: number;
  firstPage: number;
  status: number;
  bytes: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const round = (x: number, digits = 2) => Number(x.toFixed(digits));

function coldRun(): ColdRun {
  const run = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', COLD_SCRIPT, pathToFileURL(ENTRY).href, MODEL],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`cold-start process failed (${run.status}): ${run.stderr}`);
  const result = JSON.parse(run.stdout) as ColdRun;
  if (result.status !== 200) throw new Error(`cold-start render answered ${result.status}`);
  return result;
}

async function coldStart(ctx: BenchContext): Promise<BenchResult[]> {
  ensureBuilt(ctx);
  const runs = Array.from({ length: ctx.quick ? 3 : 15 }, coldRun);
  const importMs = median(runs.map((r) => r.import));
  const firstPageMs = median(runs.map((r) => r.firstPage));
  const total = median(runs.map((r) => r.import + r.firstPage));
  ctx.log(
    `cold start: import ${importMs.toFixed(1)} ms + first page ${firstPageMs.toFixed(1)} ms (median of ${runs.length})`,
  );
  return [
    {
      suite: 'serverless',
      impl: 'cold-start',
      runs: runs.length,
      importMs: round(importMs),
      firstPageMs: round(firstPageMs),
      importToFirstPageMs: round(total),
      importToFirstPageMaxMs: round(Math.max(...runs.map((r) => r.import + r.firstPage))),
      targetMs: TARGET_MS,
      withinTarget: total <= TARGET_MS,
      nodeStartupMs: round(median(runs.map((r) => r.nodeStartup))),
      nodeFetchApiMs: round(median(runs.map((r) => r.fetchApi))),
      nodeFetchApiCpuMs: round(median(runs.map((r) => r.fetchApiCpu))),
      importToFirstPageCpuMs: round(median(runs.map((r) => r.importCpu + r.firstPageCpu))),
      nodeStartupCpuMs: round(median(runs.map((r) => r.nodeStartupCpu))),
      importVsNodeStartup: round(total / median(runs.map((r) => r.nodeStartup))),
      pngBytes: runs[0]!.bytes,
      wasmBytes: existsSync(WASM) ? statSync(WASM).size : 'missing (build/glyphfold.wasm)',
    },
  ];
}

async function overhead(ctx: BenchContext): Promise<BenchResult[]> {
  const { render } = await import('../src/render/index.js');
  const { bestPageShape, resolveProfile } = await import('../src/providers/index.js');
  const { handler } = await import('../src/serverless/index.js');
  const text = 'the quick brown fox jumps over the lazy dog\n'.repeat(400);
  const shape = bestPageShape(resolveProfile(MODEL).profile, { cell: '4x6', scale: 1 });
  const body = JSON.stringify({ text, model: MODEL });
  const bench = new Bench({ time: ctx.quick ? 200 : 2000, warmupTime: ctx.quick ? 50 : 300 });
  bench
    .add('render direct', async () => {
      await render(text, { shape: { width: shape.width, height: shape.height } });
    })
    .add('handler JSON', async () => {
      const r = await handler(
        new Request('http://bench/v1/render', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        }),
      );
      await r.arrayBuffer();
    })
    .add('handler PNG', async () => {
      const r = await handler(
        new Request('http://bench/v1/render?page=1', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        }),
      );
      await r.arrayBuffer();
    });
  await bench.run();
  const mean = (name: string) => {
    const result = bench.getTask(name)?.result;
    if (!result || !('latency' in result)) throw new Error(`bench task '${name}' did not complete`);
    return result.latency.mean;
  };
  const direct = mean('render direct');
  return bench.tasks.map((task) => ({
    suite: 'serverless',
    impl: task.name,
    meanMs: round(mean(task.name), 3),
    vsRenderDirect: round(mean(task.name) / direct, 2),
  }));
}

export const serverlessSuite: BenchSuite = {
  name: 'serverless',
  async run(ctx) {
    return [...(await coldStart(ctx)), ...(await overhead(ctx))];
  },
};
