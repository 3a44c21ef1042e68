import { afterEach, describe, expect, it } from 'vitest';
import { computeBudget } from '../../src/compaction/budget.js';
import { climb, type LadderOptions } from '../../src/compaction/ladder.js';
import { rebuildRequest } from '../../src/compaction/record.js';
import { anthropicSummarizer } from '../../src/compaction/summarize.js';
import type { Item } from '../../src/transcript/items.js';
import { Builder, charEstimate, filler } from './builder.js';
import { anthropicText, lastUserText, startServer, type TestServer } from './server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const textOnly = { contextWindow: 30_000, maxOutput: 4000, vision: false };

function options(extra: Partial<LadderOptions> = {}): LadderOptions {
  const profile = extra.profile ?? textOnly;
  return {
    model: 'test-model',
    profile,
    budget: computeBudget(profile, { margin: 0, triggerAt: 1 }),
    estimate: charEstimate,
    estimateText: (t) => Math.ceil(t.length / 4),
    clock: () => 0,
    ...extra,
  };
}

/** Appends compaction records the way a history would: fresh ids, parent chain. */
function appendRecords(path: Item[], records: Awaited<ReturnType<typeof climb>>['records']): Item[] {
  const out = path.slice();
  for (const r of records) {
    const last = out[out.length - 1]!;
    out.push({ ...r, id: `c${out.length}`, parent: last.id, turn: last.turn, time: last.time } as Item);
  }
  return out;
}

function toolHeavy(): Builder {
  const b = new Builder();
  b.person('Task: make the test suite pass. Never edit vendor/.');
  for (let t = 0; t < 10; t++) {
    b.tool('bash', { cmd: `npm test -- shard ${t}` }, filler(12_000, `shard${t}`));
    b.model(`shard ${t} looked fine`);
    b.person(`next shard please (${t})`);
  }
  return b;
}

describe('climb', () => {
  it('stops at the first rung that fits and leaves the record unchanged', async () => {
    const b = toolHeavy();
    const before = JSON.stringify(b.items);
    const r = await climb(b.items, options());
    expect(JSON.stringify(b.items)).toBe(before);
    expect(r.report.rungs.map((g) => [g.rung, g.applied])).toEqual([
      ['elide', true],
      ['shed', false],
      ['snapshot', false],
      ['summarize', false],
    ]);
    expect(r.report.fits).toBe(true);
    expect(r.report.tokensAfter).toBeLessThanOrEqual(r.report.budget.target);
    expect(r.records).toHaveLength(1);
    expect(r.records[0]).toMatchObject({ kind: 'compaction', rung: 'elide' });
    // Replaying the record gives the same request.
    const rebuilt = await rebuildRequest(appendRecords(b.items, r.records));
    expect(JSON.stringify(rebuilt.items)).toBe(JSON.stringify(r.items));
  });

  it('does nothing when the request fits, unless forced', async () => {
    const b = new Builder();
    b.person('hi');
    b.model('hello');
    const r = await climb(b.items, options());
    expect(r.records).toEqual([]);
    expect(r.items).toEqual(b.items);
    expect(r.report.reasons[0]).toMatch(/request fits/);
  });

  it('sends a model without vision to the summary, through the real client, and says why', async () => {
    server = await startServer(() => ({ body: anthropicText('## Goal\nmake tests pass') }));
    const b = new Builder();
    b.person('Task: port the parser. Keep tabs.');
    for (let t = 0; t < 12; t++) {
      b.model(filler(10_000, `thoughts${t}`));
      b.person(`correction ${t}: ${filler(200, 'c')}`);
    }
    const client = anthropicSummarizer({
      model: 'claude-haiku-4-5',
      apiKey: 'k',
      baseURL: server.url,
      maxRetries: 0,
    });
    const before = JSON.stringify(b.items);
    const r = await climb(b.items, options({ summarizer: { client, window: 100_000, maxTokens: 1000 } }));
    expect(JSON.stringify(b.items)).toBe(before);
    expect(r.report.reasons).toContain('model has no vision: snapshots skipped');
    const sum = r.report.rungs.find((g) => g.rung === 'summarize')!;
    expect(sum.applied).toBe(true);
    expect(r.report.fits).toBe(true);
    // Head verbatim, then the summary, then the tail.
    expect(r.items[0]).toBe(b.items[0]);
    expect(r.items[1]).toMatchObject({ kind: 'summary', text: '## Goal\nmake tests pass' });
    expect(r.items[r.items.length - 1]).toBe(b.items[b.items.length - 1]);
    // Every correction the person typed stays verbatim in the request (they fit the person budget),
    // so the summarizer is not asked to paraphrase them.
    const persons = b.items.filter((i) => i.author === 'person');
    for (const p of persons) expect(r.items).toContain(p);
    expect(lastUserText(server.requests[0]!)).toContain('thoughts0');
    expect(lastUserText(server.requests[0]!)).not.toContain('correction 0');
    expect(r.items.some((i) => i.kind === 'image')).toBe(false);
    // Replay without any model call: same request.
    const calls = server.requests.length;
    const rebuilt = await rebuildRequest(appendRecords(b.items, r.records));
    expect(JSON.stringify(rebuilt.items)).toBe(JSON.stringify(r.items));
    expect(server.requests.length).toBe(calls);
  });

  it('reports when nothing can make the request fit', async () => {
    const b = new Builder();
    b.person('Task.');
    for (let t = 0; t < 12; t++) b.model(filler(10_000, `thoughts${t}`));
    const r = await climb(b.items, options());
    expect(r.report.fits).toBe(false);
    expect(r.report.reasons).toEqual(
      expect.arrayContaining([
        'model has no vision: snapshots skipped',
        'no summarizer configured: the summary rung cannot run',
        expect.stringMatching(/still \d+ tokens over the target/),
      ]),
    );
  });

  it('keeps earlier elisions on the next compaction (cache stability)', async () => {
    const b = toolHeavy();
    const first = await climb(b.items, options());
    const path = appendRecords(b.items, first.records);
    const elided = first.records[0]!.params['ids'] as string[];
    // More work arrives; compact again with a batch minimum nothing new can reach.
    const nb = new Builder();
    nb.turn = b.turn;
    const more = path.slice();
    for (let t = 0; t < 3; t++)
      more.push({ ...nb.person(`more ${t}`), id: `m${t}`, parent: more[more.length - 1]!.id });
    const second = await climb(more, options({ force: true, elide: { minClear: 1e9 } }));
    expect(second.records[0]!.params['ids']).toEqual(elided);
  });
});
