/**
 * Import and export speed on the bundled example (a ~580 KB Claude Code session), side by side with
 * the floor: `JSON.parse` of every line, which any importer must do. Ratios are the figures.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { importTranscript } from '../src/transcript/import/index.js';
import { exportJsonl, parseJsonl } from '../src/transcript/jsonl.js';
import type { BenchResult, BenchSuite } from './suite.js';

export const importSuite: BenchSuite = {
  name: 'import',
  async run(ctx) {
    const text = readFileSync(join(import.meta.dirname, '../examples/session.claude.jsonl'), 'utf8');
    const items = importTranscript(text).items;
    const exported = exportJsonl(items);
    const bench = new Bench(ctx.quick ? { time: 50, iterations: 3 } : { time: 1500 });
    bench
      .add('JSON.parse lines (floor)', () => {
        for (const line of text.split('\n')) if (line !== '') JSON.parse(line);
      })
      .add('importTranscript claude-code', () => {
        importTranscript(text, { format: 'claude-code' });
      })
      .add('importTranscript detect+import', () => {
        importTranscript(text);
      })
      .add('exportJsonl', () => {
        exportJsonl(items);
      })
      .add('parseJsonl', () => {
        parseJsonl(exported);
      });
    await bench.run();
    const mean = (name: string): number => {
      const r = bench.getTask(name)?.result;
      if (!r || !('period' in r)) throw new Error(`bench import: task ${name} did not complete`);
      return r.period;
    };
    const floor = mean('JSON.parse lines (floor)');
    return bench.tasks.map((task): BenchResult => {
      const ms = mean(task.name);
      const bytes =
        task.name.startsWith('exportJsonl') || task.name === 'parseJsonl' ? exported.length : text.length;
      ctx.log(`${task.name}: ${ms.toFixed(2)} ms, ${(ms / floor).toFixed(2)}× the JSON.parse floor`);
      return {
        suite: 'import',
        impl: task.name,
        items: items.length,
        kib: Math.round(bytes / 1024),
        meanMs: Number(ms.toFixed(3)),
        mibPerSecond: Number((bytes / 2 ** 20 / (ms / 1000)).toFixed(1)),
        vsJsonParse: Number((ms / floor).toFixed(2)),
      };
    });
  },
};
