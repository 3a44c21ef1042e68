/**
 * PostgreSQL store suite: durable turns/s with 1, 8 and 32 concurrent writers (one conversation each,
 * one process, each writer on its own connection), beside the folder workspace's single writer. One
 * tinybench iteration = every writer commits one turn (a message, a tool call and its ~540-char result);
 * aggregate turns/s = writers × rounds/s (`ms/round`: one round, every writer one turn). The server is a throwaway cluster on this machine's disk
 * (fsync on), started for the run; the suite is skipped with its reason where PostgreSQL is missing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { PostgresStore } from '../src/store/postgres/index.js';
import { Workspace } from '../src/store/workspace.js';
import type { NewItem } from '../src/transcript/items.js';
import type { AgentHistory } from '../src/tree/history.js';
import { startCluster } from '../test/store/pg-cluster.js';
import type { BenchResult, BenchSuite } from './suite.js';

const PAYLOAD = 'lorem ipsum dolor sit amet '.repeat(20);

function turnItems(n: number): NewItem[] {
  return [
    { kind: 'message', author: 'person', text: `question ${n}` },
    { kind: 'tool_call', author: 'model', callId: `c${n}`, name: 'read', input: { n } },
    {
      kind: 'tool_result',
      author: 'machinery',
      callId: `c${n}`,
      name: 'read',
      content: [{ type: 'text', text: PAYLOAD }],
    },
  ];
}

async function oneTurn(h: AgentHistory<boolean>, n: number): Promise<void> {
  for (const item of turnItems(n)) h.append(item);
  await h.commit();
}

export const storePgSuite: BenchSuite = {
  name: 'store-pg',
  async run(ctx) {
    const cluster = await startCluster();
    if (typeof cluster === 'string') {
      ctx.log(`store-pg: ${cluster}`);
      return [];
    }
    const results: BenchResult[] = [];
    const time = ctx.quick ? 300 : 3000;
    const store = new PostgresStore({ connectionString: cluster.url, schema: 'bench', pool: { max: 40 } });
    const dir = mkdtempSync(join(tmpdir(), 'gf-bench-pg-'));
    try {
      const bench = new Bench({ time, warmupTime: ctx.quick ? 50 : 300 });
      const perTask = new Map<string, number>();
      let n = 0;
      for (const writers of [1, 8, 32]) {
        const histories = await Promise.all(
          Array.from({ length: writers }, (_, i) => store.history(`w${writers}-${i}`)),
        );
        const name = `PostgreSQL, ${writers} writer${writers > 1 ? 's' : ''}`;
        perTask.set(name, writers);
        bench.add(name, async () => {
          n++;
          await Promise.all(histories.map((h) => oneTurn(h, n)));
        });
        ctx.log(`store-pg: ${writers} writers open`);
      }
      const ws = Workspace.open(dir);
      const folder = ws.history('w1');
      perTask.set('folder workspace, 1 writer', 1);
      bench.add('folder workspace, 1 writer', async () => {
        n++;
        await oneTurn(folder, n);
      });
      await bench.run();
      folder.close();
      ws.close();
      let one = 0;
      for (const task of bench.tasks) {
        const r = task.result as { throughput?: { mean: number }; latency?: { mean: number } } | undefined;
        const writers = perTask.get(task.name)!;
        const itersPerSec = r?.throughput?.mean ?? 0;
        const turnsPerSec = itersPerSec * writers;
        if (task.name === 'PostgreSQL, 1 writer') one = turnsPerSec;
        results.push({
          suite: 'store-pg',
          impl: task.name,
          writers,
          'turns/s': Math.round(turnsPerSec),
          'ms/round': Number((r?.latency?.mean ?? 0).toFixed(2)),
          ...(task.name.startsWith('PostgreSQL') && one > 0
            ? { 'x one writer': Number((turnsPerSec / one).toFixed(1)) }
            : {}),
        });
      }
    } finally {
      await store.close();
      cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    return results;
  },
};
