/**
 * Issue 16 suites. `deflate-bytes`: PNG bytes per page of the core's page deflate next to zlib level
 * 1 and 9 (node:zlib on the same scanlines, same PNG framing) on prose, code and log pages.
 * `deflate-speed`: text → PNG on one thread, side by side in one tinybench run: the core's stored,
 * runs and deflate encoders and zlib level 1 (`pool`, the worker pool: pool.ts).
 * `identity`: the same pages' sha256 in this process, a child process and every other JS runtime
 * installed (bun, deno).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { Bench } from 'tinybench';
import { parseVariant, render } from '../src/render/index.js';
import { WASM_BYTES } from '../src/render/generated/wasm.js';
import { assemblePng } from '../src/render/png.js';
import { loadWasmCore, type CoreDeflate, type WasmPageOptions } from '../src/render/wasm.js';
import { englishProse, serviceLog, sourceCode } from './corpus.js';
import type { BenchResult, BenchSuite } from './suite.js';

const round = (n: number, digits = 3): number => Number(n.toFixed(digits));
const SHAPES: { variant: string; width: number; height: number }[] = [
  { variant: '4x6', width: 1568, height: 784 },
  { variant: 'gf-6x10', width: 1568, height: 784 },
  { variant: 'gf-6x10', width: 336, height: 1566 },
];
const KINDS: Record<string, (chars: number) => string> = {
  prose: englishProse,
  code: sourceCode,
  log: serviceLog,
};

function pageOptions(s: { variant: string; width: number; height: number }): WasmPageOptions {
  return { width: s.width, height: s.height, ...parseVariant(s.variant) };
}

const bytesSuite: BenchSuite = {
  name: 'deflate-bytes',
  async run(ctx) {
    const core = await loadWasmCore();
    const rows: BenchResult[] = [];
    const maxPages = ctx.quick ? 3 : 12;
    for (const s of SHAPES) {
      for (const [kind, make] of Object.entries(KINDS)) {
        const text = make(maxPages * 60_000);
        const sum = { core: 0, runs: 0, stored: 0, z1: 0, z9: 0, pages: 0 };
        for (const page of core.pages(text, pageOptions(s))) {
          sum.core += page.png('deflate').length;
          sum.runs += page.png('runs').length;
          sum.stored += page.png('stored').length;
          sum.z1 += assemblePng(
            s.width,
            s.height,
            deflateSync(page.scanlines, { level: 1, memLevel: 9 }),
          ).length;
          sum.z9 += assemblePng(
            s.width,
            s.height,
            deflateSync(page.scanlines, { level: 9, memLevel: 9 }),
          ).length;
          if (++sum.pages === maxPages) break;
        }
        const kb = (n: number): number => round(n / sum.pages / 1024, 1);
        rows.push({
          suite: 'deflate-bytes',
          impl: kind,
          shape: `${s.width}x${s.height}`,
          cell: s.variant,
          pages: sum.pages,
          kbCoreDeflate: kb(sum.core),
          kbZlib1: kb(sum.z1),
          kbZlib9: kb(sum.z9),
          kbRuns: kb(sum.runs),
          kbStored: kb(sum.stored),
          vsZlib1: round(sum.core / sum.z1, 2),
          vsZlib9: round(sum.core / sum.z9, 2),
        });
      }
    }
    return rows;
  },
};

type Mode = CoreDeflate | 'zlib-1';

function pipeline(
  core: Awaited<ReturnType<typeof loadWasmCore>>,
  text: string,
  o: WasmPageOptions,
  mode: Mode,
): number {
  let bytes = 0;
  for (const page of core.pages(text, o)) {
    bytes +=
      mode === 'zlib-1'
        ? assemblePng(o.width, o.height, deflateSync(page.scanlines, { level: 1, memLevel: 9 })).length
        : page.png(mode).length;
  }
  return bytes;
}

const speedSuite: BenchSuite = {
  name: 'deflate-speed',
  async run(ctx) {
    const core = await loadWasmCore();
    const rows: BenchResult[] = [];
    for (const s of [SHAPES[0]!, SHAPES[1]!]) {
      const o = pageOptions(s);
      const text = englishProse(ctx.quick ? 200_000 : 1_000_000);
      const pages = core.count(text, o).pages;
      const modes: Mode[] = ['stored', 'runs', 'deflate', 'zlib-1'];
      const bench = new Bench({
        time: ctx.quick ? 150 : 1500,
        iterations: ctx.quick ? 2 : 8,
        warmupTime: ctx.quick ? 50 : 300,
        warmupIterations: 2,
      });
      const cpu: Record<string, { total: number; calls: number }> = {};
      const cpuNow = (): number => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1000;
      };
      for (const m of modes) {
        const c = (cpu[m] = { total: 0, calls: 0 });
        bench.add(m, () => {
          const t = cpuNow();
          pipeline(core, text, o, m);
          c.total += cpuNow() - t;
          c.calls++;
        });
      }
      await bench.run();
      for (const task of bench.tasks) {
        const r = task.result;
        if (r.state !== 'completed') throw new Error(`deflate-speed ${task.name}: ${r.state}`);
        const c = cpu[task.name]!;
        const cpuMs = c.total / c.calls;
        ctx.log(`${s.variant} ${task.name}: p50 ${r.latency.p50.toFixed(2)} ms, cpu ${cpuMs.toFixed(2)} ms`);
        rows.push({
          suite: 'deflate-speed',
          impl: task.name,
          shape: `${s.width}x${s.height}`,
          cell: s.variant,
          mcharsPerSec: round(text.length / r.latency.p50 / 1000, 1),
          mcharsPerCpuSec: round(text.length / cpuMs / 1000, 1),
          kbPerPage: round(pipeline(core, text, o, task.name as Mode) / pages / 1024, 1),
        });
      }
    }
    rows.push({ suite: 'deflate-speed', impl: 'module', wasmBytes: WASM_BYTES });
    return rows;
  },
};

/** The child of `identity`: sha256 of the pages of a fixed text, on whatever runtime runs it. */
const IDENTITY_SCRIPT = (entry: string): string => `
import { render } from ${JSON.stringify(entry)};
const text = ${JSON.stringify(englishProse(120_000))};
const r = await render(text, { shape: { width: 1568, height: 784 }, cell: '4x6' });
const parts = r.pages.map((p) => p.png);
const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
let at = 0; for (const p of parts) { all.set(p, at); at += p.length; }
const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', all));
console.log([...digest].map((b) => b.toString(16).padStart(2, '0')).join(''));
`;

const identitySuite: BenchSuite = {
  name: 'identity',
  async run(ctx) {
    const r = await render(englishProse(120_000), { shape: { width: 1568, height: 784 }, cell: '4x6' });
    const h = createHash('sha256');
    for (const p of r.pages) h.update(p.png);
    const here = h.digest('hex');
    const bundle = new URL('../dist/bundle/render/index.js', import.meta.url);
    if (!existsSync(bundle)) {
      ctx.log('identity: dist/bundle/render/index.js missing; run `npm run build` first');
      return [{ suite: 'identity', impl: 'node', skipped: 'dist not built (npm run build)' }];
    }
    const entry = bundle.href;
    const script = IDENTITY_SCRIPT(entry);
    const rows: BenchResult[] = [
      { suite: 'identity', impl: `node ${process.version} (this process)`, sha256: here.slice(0, 16) },
    ];
    const runtimes: [string, string[]][] = [
      [process.execPath, ['--input-type=module', '-e', script]],
      ['bun', ['-e', script]],
      ['deno', ['eval', script]],
    ];
    for (const [cmd, args] of runtimes) {
      const child = spawnSync(cmd, args, { encoding: 'utf8' });
      const name = cmd === process.execPath ? `node ${process.version} (child process)` : cmd;
      if (child.error) {
        ctx.log(`identity: ${cmd} not installed`);
        rows.push({ suite: 'identity', impl: name, skipped: 'not installed' });
        continue;
      }
      if (child.status !== 0) throw new Error(`identity: ${cmd} failed: ${child.stderr}`);
      const sha = child.stdout.trim();
      rows.push({ suite: 'identity', impl: name, sha256: sha.slice(0, 16), identical: sha === here });
    }
    return rows;
  },
};

export const DEFLATE_SUITES: readonly BenchSuite[] = [bytesSuite, speedSuite, identitySuite];
