/**
 * Views and token estimates on the bundled example (a long Claude Code session), side by side with a
 * floor: one shallow copy per item, the least any view that builds a new body does. (Image strings
 * are shared, not copied, except where a format needs a data: URL.) Ratios are the figures.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { resolveProfile } from '../src/providers/index.js';
import { estimateTokens } from '../src/tokens/index.js';
import { importTranscript } from '../src/transcript/import/index.js';
import { repairPairing, screenView, wireView, WIRE_PROVIDERS } from '../src/views/index.js';
import type { BenchResult, BenchSuite } from './suite.js';

export const viewsSuite: BenchSuite = {
  name: 'views',
  async run(ctx) {
    const text = readFileSync(join(import.meta.dirname, '../examples/session.claude.jsonl'), 'utf8');
    const items = importTranscript(text).items;
    const model = 'claude-opus-4-7';
    const request = { model, system: 'You are a coding agent.', profile: resolveProfile(model).profile };
    const bench = new Bench(ctx.quick ? { time: 50, iterations: 3 } : { time: 1000 });
    bench.add('shallow copy per item (floor)', () => {
      items.map((i) => ({ ...i }));
    });
    bench.add('repairPairing', () => {
      repairPairing(items);
    });
    for (const provider of WIRE_PROVIDERS)
      bench.add(`wireView ${provider}`, () => {
        wireView(provider, items, request);
      });
    bench.add('estimateTokens anthropic', () => {
      estimateTokens('anthropic', items, request);
    });
    bench.add('screenView', () => {
      screenView(items);
    });
    await bench.run();
    const mean = (name: string): number => {
      const r = bench.getTask(name)?.result;
      if (!r || !('period' in r)) throw new Error(`bench views: task ${name} did not complete`);
      return r.period;
    };
    const floor = mean('shallow copy per item (floor)');
    return bench.tasks.map((task): BenchResult => {
      const ms = mean(task.name);
      ctx.log(`${task.name}: ${ms.toFixed(3)} ms, ${(ms / floor).toFixed(2)}× the floor`);
      return {
        suite: 'views',
        impl: task.name,
        items: items.length,
        meanMs: Number(ms.toFixed(3)),
        vsShallowCopy: Number((ms / floor).toFixed(2)),
      };
    });
  },
};
