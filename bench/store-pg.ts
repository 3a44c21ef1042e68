/**
 * PostgreSQL store suite, beside the folder workspace in the same run:
 * 1. durable turns/s with 1, 8 and 32 concurrent writers (one conversation each, one process, each
 *    writer on its own connection), and the folder workspace's single writer. One
 * tinybench iteration = every writer commits one turn (a message, a tool call and its ~540-char result);
 *    aggregate turns/s = writers × rounds/s (`ms/round`: one round, every writer one turn).
 * 2. opening a 100k-item history (quick: 10k) for reading, PostgreSQL vs folder.
 * 3. opening one conversation in a store of 1 vs 10,000 conversations (quick: 1,000).
 * 4. a history of 300 screenshots of 2 MB (quick: 50): open time and peak RSS of a process that opens
 *    it, with every body in memory (`retainBytes: Infinity`: what an open cost before bodies were read
 *    back) beside the index and 16 MiB of bodies (the default, with and without `verifyOnOpen`), each
 *    in a child process of plain node (the bundled test fixture), side by side in one run.
 * The server is a throwaway cluster on this machine's disk (fsync on), started for the run; the suite
 * is skipped with its reason where PostgreSQL is missing.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { PostgresStore } from '../src/store/postgres/index.js';
import { Workspace } from '../src/store/workspace.js';
import type { Item, NewItem } from '../src/transcript/items.js';
import { encodeEntries, encodeHeader, type LogEntry } from '../src/transcript/log.js';
import { sha256Hex } from '../src/transcript/hash.js';
import type { AgentHistory } from '../src/tree/history.js';
import { startCluster } from '../test/store/pg-cluster.js';
import type { BenchResult, BenchSuite } from './suite.js';
import { bundleChild } from '../test/helpers/bundle-child.js';

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

const TIME = '2026-11-30T00:00:00.000Z';

/** The index columns PostgreSQL keeps beside each line (schema version 2). */
interface LineIndex {
  hash: string;
  prev: string | null;
  item: string | null;
  parent: string | null;
}

/** The lines of a committed log of `items` items (3 per turn), as both stores keep them. */
function logLines(
  conversation: string,
  items: number,
): { lines: string[]; index: LineIndex[]; head: string; tip: string; turns: number } {
  const header = encodeHeader({ t: 'header', v: 1, conversation, agent: 'main', created: TIME });
  const lines = [header.text.slice(0, -1)];
  const index: LineIndex[] = [{ hash: header.hash, prev: null, item: null, parent: null }];
  let prev = header.hash;
  let parent: string | null = null;
  let turn = 0;
  for (let i = 0; i < items;) {
    turn++;
    const unit: LogEntry[] = [];
    for (let k = 0; k < 3 && i < items; k++, i++) {
      const base: { id: string; parent: string | null; turn: number; time: string } = {
        id: `i${i}`,
        parent,
        turn,
        time: TIME,
      };
      const item: Item =
        k === 0
          ? { ...base, kind: 'message', author: 'person', text: `question ${turn}` }
          : k === 1
            ? {
                ...base,
                kind: 'tool_call',
                author: 'model',
                callId: `c${turn}`,
                name: 'read',
                input: { turn },
              }
            : {
                ...base,
                kind: 'tool_result',
                author: 'machinery',
                callId: `c${turn}`,
                name: 'read',
                content: [{ type: 'text', text: PAYLOAD }],
              };
      unit.push({ t: 'item', item });
      parent = base.id;
    }
    unit.push({ t: 'commit', turn, time: TIME });
    const e = encodeEntries(unit, prev);
    lines.push(...e.text.slice(0, -1).split('\n'));
    unit.forEach((entry, k) => {
      const item = entry.t === 'item' ? entry.item : undefined;
      index.push({
        hash: e.lines[k]!.hash,
        prev: k === 0 ? prev : e.lines[k - 1]!.hash,
        item: item?.id ?? null,
        parent: item?.parent ?? null,
      });
    });
    prev = e.lastHash;
  }
  return { lines, index, head: prev, tip: parent!, turns: turn };
}

/** Stores a log straight into the tables (setup: no per-turn transactions). */
async function insertLog(store: PostgresStore, conversation: string, items: number): Promise<void> {
  const { lines, index, head, tip, turns } = logLines(conversation, items);
  const t = (x: string): string => store.t(x);
  await store.migrate();
  await store.pool.query(`INSERT INTO ${t('conversations')} (id, created) VALUES ($1, $2)`, [
    conversation,
    TIME,
  ]);
  await store.pool.query(
    `INSERT INTO ${t('histories')} (conversation, agent, created, tip, turn, items, lines, head) VALUES ($1, 'main', $2, $3, $4, $5, $6, $7)`,
    [conversation, TIME, tip, turns, items, lines.length, head],
  );
  for (let from = 0; from < lines.length; from += 5000) {
    const batch = lines.slice(from, from + 5000);
    const idx = index.slice(from, from + 5000);
    await store.pool.query(
      `INSERT INTO ${t('entries')} (conversation, agent, line, body, hash, prev, item, parent)
       SELECT $1, 'main', l, b, h, p, i, ip
         FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS u (l, b, h, p, i, ip)`,
      [
        conversation,
        batch.map((_, i) => from + i + 1),
        batch,
        idx.map((x) => x.hash),
        idx.map((x) => x.prev),
        idx.map((x) => x.item),
        idx.map((x) => x.parent),
      ],
    );
  }
}

async function medianMs(runs: number, f: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await f();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[runs >> 1]!;
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

      // 2. a long history opened for reading.
      const big = ctx.quick ? 10_000 : 100_000;
      await insertLog(store, 'big', big);
      const { lines } = logLines('big', big);
      mkdirSync(join(dir, 'logs', 'big'), { recursive: true });
      writeFileSync(join(dir, 'logs', 'big', 'main.jsonl'), lines.join('\n') + '\n');
      const folderWs = Workspace.open(dir);
      folderWs.history('big', 'main', { readOnly: true }).close(); // indexes it once
      const pgLoad = await medianMs(3, async () => {
        const h = await store.history('big', 'main', { readOnly: true });
        // The count, not items(): items() reads back every body past retainBytes (not part of opening).
        if (h.itemCount !== big) throw new Error(`store-pg: loaded ${h.itemCount} items, expected ${big}`);
        await h.close();
      });
      const folderLoad = await medianMs(3, async () => {
        folderWs.history('big', 'main', { readOnly: true }).close();
      });
      folderWs.close();
      results.push(
        { suite: 'store-pg', impl: `PostgreSQL, open ${big} items`, ms: Math.round(pgLoad) },
        { suite: 'store-pg', impl: `folder workspace, open ${big} items`, ms: Math.round(folderLoad) },
      );
      ctx.log(
        `store-pg: open ${big} items: PostgreSQL ${Math.round(pgLoad)} ms, folder ${Math.round(folderLoad)} ms`,
      );

      // 3. one conversation among 1 vs many.
      const many = ctx.quick ? 1_000 : 10_000;
      const single = new PostgresStore({ connectionString: cluster.url, schema: 'bench_one' });
      const lots = new PostgresStore({ connectionString: cluster.url, schema: 'bench_many' });
      try {
        for (const s of [single, lots]) await insertLog(s, 'target', 30);
        await lots.pool.query(
          `INSERT INTO ${lots.t('conversations')} (id, created) SELECT 'c' || g, $1 FROM generate_series(1, $2) g`,
          [TIME, many - 1],
        );
        await lots.pool.query(
          `INSERT INTO ${lots.t('histories')} (conversation, agent, created, tip, turn, items, lines, head)
           SELECT 'c' || g, 'main', $1, NULL, 0, 0, 1, 'x' FROM generate_series(1, $2) g`,
          [TIME, many - 1],
        );
        await lots.pool.query(
          `INSERT INTO ${lots.t('entries')} (conversation, agent, line, body, hash)
           SELECT 'c' || g, 'main', l, repeat('x', 500), $2 FROM generate_series(1, $1) g, generate_series(1, 10) l`,
          [many - 1, sha256Hex('x'.repeat(500))],
        );
        await lots.pool.query(`ANALYZE ${lots.t('entries')}`);
        const bench = new Bench({ time: ctx.quick ? 200 : 1500, warmupIterations: 5 });
        bench.add('PostgreSQL, open 1 conversation of 1', async () => {
          await (await single.history('target', 'main', { readOnly: true })).close();
        });
        bench.add(`PostgreSQL, open 1 conversation of ${many}`, async () => {
          await (await lots.history('target', 'main', { readOnly: true })).close();
        });
        bench.add('PostgreSQL, open for writing (lock) 1 of 1', async () => {
          await (await single.history('target')).close();
        });
        bench.add(`PostgreSQL, open for writing (lock) 1 of ${many}`, async () => {
          await (await lots.history('target')).close();
        });
        await bench.run();
        for (const task of bench.tasks) {
          const r = task.result as { latency?: { p50: number } } | undefined;
          results.push({
            suite: 'store-pg',
            impl: task.name,
            ms: Number((r?.latency?.p50 ?? NaN).toFixed(2)),
          });
        }
      } finally {
        await single.close();
        await lots.close();
      }

      results.push(...(await bigBodies(cluster.url, ctx)));
    } finally {
      await store.close();
      cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    return results;
  },
};

/** Peak RSS and open time of a child process opening a history of large screenshots (section 4). */
async function bigBodies(
  url: string,
  ctx: { quick: boolean; log: (line: string) => void },
): Promise<BenchResult[]> {
  const shots = ctx.quick ? 50 : 300;
  const chars = 2_000_000;
  const bundle = join('node_modules', '.cache', 'glyphfold-bench', 'pg-open.mjs');
  await bundleChild('test/store/fixtures/pg-open.ts', bundle);
  const store = new PostgresStore({ connectionString: url, schema: 'bench_big' });
  try {
    const h = await store.history('big');
    // Random data: PNGs do not compress, so neither does TOAST.
    const noise = randomBytes((chars * 3) / 4).toString('base64');
    for (let i = 0; i < shots; i++) {
      const tag = String(i).padStart(8, '0');
      h.append({ kind: 'image', author: 'machinery', mediaType: 'image/png', data: tag + noise.slice(8) });
      await h.commit();
    }
    await h.close();
    const { rows } = await store.pool.query<{ heap: string; total: string }>(
      `SELECT pg_relation_size($1) AS heap, pg_total_relation_size($1) AS total`,
      [store.t('entries')],
    );
    ctx.log(
      `store-pg: ${shots} screenshots stored: entries heap ${(Number(rows[0]!.heap) / 1e6).toFixed(2)} MB, with TOAST and index ${(Number(rows[0]!.total) / 1e6).toFixed(0)} MB`,
    );
  } finally {
    await store.close();
  }
  const modes: [string, string[]][] = [
    ['every body in memory (retainBytes: Infinity, as before), read', ['open', 'all']],
    ['index + 16 MiB of bodies (default), read', ['open', 'default']],
    ['index + 16 MiB, verifyOnOpen: false, read', ['open', 'default', 'noverify']],
    ['index + 16 MiB of bodies (default), write', ['write', 'default']],
  ];
  const out: BenchResult[] = [];
  let before: { ms: number; rss: number } | undefined;
  for (const [name, args] of modes) {
    const r = JSON.parse(
      execFileSync(process.execPath, [bundle, url, 'bench_big', ...args], { encoding: 'utf8' }),
    ) as { ms: number; maxRssBytes: number; items: number; error?: string };
    if (r.error) throw new Error(`store-pg: ${name}: ${r.error}`);
    const rss = r.maxRssBytes / 1e6;
    before ??= { ms: r.ms, rss };
    out.push({
      suite: 'store-pg',
      impl: `PostgreSQL, open ${shots} × 2 MB screenshots: ${name}`,
      ms: r.ms,
      'peak RSS MB': Math.round(rss),
      'x RSS of before': Number((rss / before.rss).toFixed(2)),
      'x time of before': Number((r.ms / before.ms).toFixed(2)),
    });
    ctx.log(`store-pg: ${shots} screenshots, ${name}: ${r.ms} ms, peak RSS ${Math.round(rss)} MB`);
  }
  return out;
}
