/**
 * `import('glyphfold')` in a fresh Node process, side by side with what the root cost before it was
 * made light: every module file of dist/ (the unbundled root, dist/index.js) plus better-sqlite3 and
 * both SDKs, which the old root imported statically. Node's own start-up is measured too (`node -e 0`)
 * and subtracted, so the ratio compares import work. Needs `npm run build:ts` (dist/).
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
    for (const [name, code] of Object.entries(CASES)) {
      // cwd is the package: `glyphfold` resolves through its own `exports` (self-reference).
      bench.add(name, () => {
        execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root });
      });
    }
    await bench.run();
    const mean = (name: string): number => {
      const r = bench.getTask(name)?.result;
      if (!r || !('period' in r)) throw new Error(`bench root-import: task ${name} did not complete`);
      return r.period;
    };
    const floor = mean('node -e 0 (start-up floor)');
    const light = mean("import('glyphfold') (light root)") - floor;
    return bench.tasks.map((task): BenchResult => {
      const ms = mean(task.name);
      const work = ms - floor;
      ctx.log(`${task.name}: ${ms.toFixed(1)} ms wall, ${work.toFixed(1)} ms over start-up`);
      return {
        suite: 'root-import',
        impl: task.name,
        meanMs: Number(ms.toFixed(1)),
        importMs: Number(work.toFixed(1)),
        vsLightRoot: Number((work / light).toFixed(2)),
      };
    });
  },
};
