/**
 * Store suite: append + commit throughput, load time of large histories (10k vs 100k items, to show it
 * is linear), and the cost of opening one conversation in a workspace of 1 vs 1000 conversations (to
 * show it does not depend on the others). Ratios measured side by side are the figures that matter.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { Workspace } from '../src/store/workspace.js';
import { encodeEntries, encodeHeader, type LogEntry } from '../src/transcript/log.js';
import type { Item } from '../src/transcript/items.js';
import { MemoryWorkspace } from '../src/tree/memory.js';
import type { AgentHistory } from '../src/tree/history.js';
import type { BenchResult, BenchSuite } from './suite.js';

const TIME = '2026-11-29T00:00:00.000Z';
const PAYLOAD = 'lorem ipsum dolor sit amet '.repeat(20); // ~540 chars, a small tool result

function oneTurn(h: AgentHistory, n: number): void {
  h.append({ kind: 'message', author: 'person', text: `question ${n}` });
  h.append({ kind: 'tool_call', author: 'model', callId: `c${n}`, name: 'read', input: { n } });
  h.append({
    kind: 'tool_result',
    author: 'machinery',
    callId: `c${n}`,
    name: 'read',
    content: [{ type: 'text', text: PAYLOAD }],
  });
  h.commit();
}

/** Writes a committed log of `items` items (3 per turn) straight to disk; setup, so no fsync. */
function writeLog(ws: string, conversation: string, items: number): void {
  const dir = join(ws, 'logs', conversation);
  mkdirSync(dir, { recursive: true });
  const header = encodeHeader({ t: 'header', v: 1, conversation, agent: 'main', created: TIME });
  const chunks: string[] = [header.text];
  let prev = header.hash;
  let parent: string | null = null;
  for (let i = 0, turn = 1; i < items; turn++) {
    const unit: LogEntry[] = [];
    for (let k = 0; k < 3 && i < items; k++, i++) {
      const id = `i${i}`;
      const base = { id, parent, turn, time: TIME };
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
      parent = id;
    }
    unit.push({ t: 'commit', turn, time: TIME });
    const e = encodeEntries(unit, prev);
    chunks.push(e.text);
    prev = e.lastHash;
  }
  writeFileSync(join(dir, 'main.jsonl'), chunks.join(''));
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

/** Median latency in ms: on a shared machine the median is steadier than the mean. */
function mean(task: { result: unknown } | undefined): number {
  const r = task?.result as { latency?: { p50: number } } | undefined;
  if (!r?.latency) throw new Error('bench task produced no latency statistics');
  return r.latency.p50;
}

export const storeSuite: BenchSuite = {
  name: 'store',
  async run(ctx) {
    const results: BenchResult[] = [];
    const root = mkdtempSync(join(tmpdir(), 'gf-bench-store-'));
    try {
      // 1. append + commit throughput: one durable write + fsync per turn, against the memory reference.
      {
        const ws = Workspace.open(join(root, 'tp'));
        const mem = new MemoryWorkspace();
        const disk = ws.history('tp');
        const ref = mem.history('tp');
        let n = 0;
        const bench = new Bench({ time: ctx.quick ? 200 : 2000, warmupIterations: 5 });
        bench.add('workspace (JSONL + fsync + SQLite)', () => oneTurn(disk, n++));
        bench.add('memory (reference)', () => oneTurn(ref, n++));
        await bench.run();
        const [d, m] = [mean(bench.tasks[0]), mean(bench.tasks[1])];
        results.push({
          suite: 'store',
          impl: 'append+commit: workspace',
          turnsPerSecond: Math.round(1000 / d),
          msPerTurn: +d.toFixed(3),
          itemsPerTurn: 3,
        });
        results.push({
          suite: 'store',
          impl: 'append+commit: memory',
          turnsPerSecond: Math.round(1000 / m),
          msPerTurn: +m.toFixed(4),
          itemsPerTurn: 3,
          workspaceSlowdown: +(d / m).toFixed(1),
        });
        ctx.log(`append+commit: ${Math.round(1000 / d)} turns/s on disk, ${Math.round(1000 / m)} in memory`);
        disk.close();
        ws.close();
      }
      // 2. load time: 10k vs 100k items (quick: 2k vs 20k), same 10x ratio.
      {
        const small = ctx.quick ? 2_000 : 10_000;
        const large = small * 10;
        const dir = join(root, 'load');
        writeLog(dir, 'small', small);
        writeLog(dir, 'large', large);
        const ws = Workspace.open(dir);
        ws.reindex();
        // Interleaved rounds (small, large, small, large, …) and medians: a load takes seconds, and on a
        // shared machine the background changes between two back-to-back blocks of runs.
        const load = (c: string): number => {
          const t = performance.now();
          ws.history(c, 'main', { readOnly: true }).close();
          return performance.now() - t;
        };
        load('small');
        const smallRuns: number[] = [];
        const largeRuns: number[] = [];
        for (let r = 0; r < (ctx.quick ? 3 : 7); r++) {
          smallRuns.push(load('small'));
          largeRuns.push(load('large'));
        }
        const [s, l] = [median(smallRuns), median(largeRuns)];
        results.push({
          suite: 'store',
          impl: `load ${small} items`,
          ms: +s.toFixed(1),
          usPerItem: +((s * 1000) / small).toFixed(2),
        });
        results.push({
          suite: 'store',
          impl: `load ${large} items`,
          ms: +l.toFixed(1),
          usPerItem: +((l * 1000) / large).toFixed(2),
          timeRatio: +(l / s).toFixed(2),
          itemRatio: large / small,
          perItemRatio: +(l / s / (large / small)).toFixed(2),
        });
        ctx.log(
          `load: ${s.toFixed(1)} ms for ${small}, ${l.toFixed(1)} ms for ${large} (x${(l / s).toFixed(1)} for x10 items)`,
        );
        ws.close();
      }
      // 3. opening one conversation among 1 vs 1000 others (quick: 100).
      {
        const many = ctx.quick ? 100 : 1000;
        const one = join(root, 'one');
        const lots = join(root, 'many');
        writeLog(one, 'target', 30);
        for (let i = 0; i < many; i++) writeLog(lots, `conv-${i}`, 30);
        const wsOne = Workspace.open(one);
        const wsMany = Workspace.open(lots);
        wsOne.reindex();
        wsMany.reindex();
        const target = `conv-${many >> 1}`;
        const bench = new Bench({ time: ctx.quick ? 200 : 1500, warmupIterations: 5 });
        bench.add('open in a workspace of 1', () =>
          wsOne.history('target', 'main', { readOnly: true }).close(),
        );
        bench.add(`open in a workspace of ${many}`, () =>
          wsMany.history(target, 'main', { readOnly: true }).close(),
        );
        bench.add('open for writing (lock) of 1', () => wsOne.history('target').close());
        bench.add(`open for writing (lock) of ${many}`, () => wsMany.history(target).close());
        await bench.run();
        const [a, b, c, d] = bench.tasks.map((t) => mean(t));
        results.push({
          suite: 'store',
          impl: 'open conversation (read), 1 in workspace',
          ms: +a!.toFixed(3),
        });
        results.push({
          suite: 'store',
          impl: `open conversation (read), ${many} in workspace`,
          ms: +b!.toFixed(3),
          ratioVsOne: +(b! / a!).toFixed(2),
        });
        results.push({
          suite: 'store',
          impl: 'open conversation (write), 1 in workspace',
          ms: +c!.toFixed(3),
        });
        results.push({
          suite: 'store',
          impl: `open conversation (write), ${many} in workspace`,
          ms: +d!.toFixed(3),
          ratioVsOne: +(d! / c!).toFixed(2),
        });
        ctx.log(
          `open: ${a!.toFixed(3)} ms among 1, ${b!.toFixed(3)} ms among ${many} (x${(b! / a!).toFixed(2)})`,
        );
        wsOne.close();
        wsMany.close();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    return results;
  },
};
