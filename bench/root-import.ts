/**
 * `import('glyphfold')` in a fresh Node process, side by side with what the root cost before it was
 * made light: every module file of dist/ (the unbundled root, dist/index.js) plus better-sqlite3 and
 * both SDKs, which the old root imported statically. Two figures per case: the wall time of the whole
 * process (tinybench), and the import alone as the child measures it (`performance.now()` around the
 * `await import`, median over the runs): the second is what the ratio uses, since Node's start-up on a
 * shared machine varies by more than a light import costs. Needs `npm run build:ts` (dist/).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import type { BenchResult, BenchSuite } from './suite.js';

const root = join(import.meta.dirname, '..');

const CASES: Record<string, string> = {
  'node -e 0 (start-up floor)': '0',
  "import('glyphfold') (light root)": "await import('glyphfold')",
  'eager root as before (dist/index.js + better-sqlite3 + both SDKs)':
    "await Promise.all([import('./dist/index.js'), import('better-sqlite3'), import('openai'), import('@anthropic-ai/sdk')])",
  "import('glyphfold/views')": "await import('glyphfold/views')",
  "import('glyphfold/compaction')": "await import('glyphfold/compaction')",
};

export const rootImportSuite: BenchSuite = {
  name: 'root-import',
  async run(ctx) {
    const bench = new Bench(ctx.quick ? { time: 50, iterations: 2 } : { time: 4000, iterations: 10 });
    const inChild = new Map<string, number[]>();
    for (const [name, code] of Object.entries(CASES)) {
      const timed = `const t0 = performance.now(); ${code}; console.log(performance.now() - t0);`;
      inChild.set(name, []);
      // cwd is the package: `glyphfold` resolves through its own `exports` (self-reference).
      bench.add(name, () => {
        const out = execFileSync(process.execPath, ['--input-type=module', '-e', timed], {
          cwd: root,
          encoding: 'utf8',
        });
        inChild.get(name)!.push(Number(out.trim()));
      });
    }
    await bench.run();
    const mean = (name: string): number => {
      const r = bench.getTask(name)?.result;
      if (!r || !('period' in r)) throw new Error(`bench root-import: task ${name} did not complete`);
      return r.period;
    };
    const median = (name: string): number => {
      const xs = [...(inChild.get(name) ?? [])].sort((a, b) => a - b);
      if (xs.length === 0) throw new Error(`bench root-import: task ${name} ran no child`);
      return xs[Math.floor(xs.length / 2)]!;
    };
    const light = median("import('glyphfold') (light root)");
    return bench.tasks.map((task): BenchResult => {
      const ms = mean(task.name);
      const imp = median(task.name);
      ctx.log(`${task.name}: ${ms.toFixed(1)} ms wall, import ${imp.toFixed(1)} ms (median in the child)`);
      return {
        suite: 'root-import',
        impl: task.name,
        wallMs: Number(ms.toFixed(1)),
        importMs: Number(imp.toFixed(1)),
        vsLightRoot: Number((imp / light).toFixed(2)),
      };
    });
  },
};
