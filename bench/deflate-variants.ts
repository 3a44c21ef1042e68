/**
 * `node --import tsx bench/deflate-variants.ts A.wasm B.wasm …`: builds of the core side by side in one
 * process, for weighing a change to assembly/deflate.ts (docs/renderer.md §5, the table of ideas).
 * Build a variant with `npx asc assembly/index.ts --target release -o /tmp/variant.wasm`, the
 * baseline the same way from another commit. Prints, per build: text → PNG Mchar per CPU second, CPU
 * µs per page and wall µs per page (median and minimum) on 1M characters of the bench prose (1568×784,
 * 4x6 and gf-6x10; runs interleaved, 11 of them or `REPS=…`, since the machine is shared), and PNG
 * bytes ÷ zlib level 1 over prose, code and log on three shapes.
 */
import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { parseVariant } from '../src/render/index.js';
import { loadWasmCoreFrom, type WasmPageOptions } from '../src/render/wasm.js';
import { englishProse, serviceLog, sourceCode } from './corpus.js';

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: node --import tsx bench/deflate-variants.ts A.wasm [B.wasm …]\n');
  process.exit(2);
}
const wasm = (globalThis as unknown as { WebAssembly: { Module: new (b: Uint8Array) => object } })
  .WebAssembly;
const cores = await Promise.all(files.map((f) => loadWasmCoreFrom(new wasm.Module(readFileSync(f)))));
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const options = (variant: string, width: number, height: number): WasmPageOptions => ({
  width,
  height,
  ...parseVariant(variant),
});
const SPEED = [options('4x6', 1568, 784), options('gf-6x10', 1568, 784)];
const BYTES = [...SPEED, options('gf-6x10', 336, 1566)];

// PNG bytes ÷ zlib level 1 (same framing: the core's PNG minus its zlib stream is 57 bytes).
const ratios = cores.map((core) => {
  let mine = 0;
  let zlib = 0;
  for (const make of [englishProse, sourceCode, serviceLog]) {
    for (const o of BYTES) {
      let pages = 0;
      for (const page of core.pages(make(400_000), o)) {
        mine += page.png('deflate').length;
        zlib += deflateSync(page.scanlines, { level: 1, memLevel: 9 }).length + 57;
        if (++pages === 6) break;
      }
    }
  }
  return mine / zlib;
});

const text = englishProse(1_000_000);
// Interleaved runs per build (REPS=… for more on a noisy machine). CPU time comes in the kernel's
// ticks (a run of 39 pages is ~8 ms), so wall time per run is printed too: its minimum is the
// steadiest figure on a shared machine.
const REPS = Number(process.env.REPS ?? 11);
for (const o of SPEED) {
  const cpu: number[][] = files.map(() => []);
  const wall: number[][] = files.map(() => []);
  for (let rep = 0; rep < REPS; rep++) {
    cores.forEach((core, i) => {
      const t = cpuMs();
      const t0 = performance.now();
      for (const page of core.pages(text, o)) page.png('deflate');
      wall[i]!.push(performance.now() - t0);
      cpu[i]!.push(cpuMs() - t);
    });
  }
  const median = (v: number[]): number => [...v].sort((a, b) => a - b)[v.length >> 1]!;
  const cell = `${o.cell}${o.scale && o.scale > 1 ? `+s${o.scale}` : ''}`;
  const nPages = [...cores[0]!.pages(text, o)].length;
  const us = (ms: number): string => ((ms * 1000) / nPages).toFixed(1).padStart(6);
  for (const [i, f] of files.entries()) {
    const mcps = text.length / median(cpu[i]!) / 1000;
    process.stdout.write(
      `${cell.padEnd(8)} ${f.padEnd(32)} ${mcps.toFixed(0).padStart(4)} Mchar/CPU-s ${us(median(cpu[i]!))} CPU µs/page, wall µs/page median ${us(median(wall[i]!))} min ${us(Math.min(...wall[i]!))}  bytes ÷ zlib-1 ${ratios[i]!.toFixed(3)}\n`,
    );
  }
}
