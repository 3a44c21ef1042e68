/**
 * The shipped rungs at their own limits (issue 18): elide's default batch minimum, the span the free
 * rungs' records name, the image limits the snapshot rung derives from the profile and from images
 * already in the request (tool results included), which tail fraction it settles on, which middle the
 * summary rung chooses when nothing is pending, and the summary rung's size rule at equality.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LadderOptions } from '../../src/compaction/ladder.js';
import type { IdRange } from '../../src/compaction/record.js';
import type { LadderState } from '../../src/compaction/rung.js';
import { elideRung, shedRung, snapshotRung, summarizeRung } from '../../src/compaction/rungs.js';
import { anthropicSummarizer } from '../../src/compaction/summarize.js';
import type { Item } from '../../src/transcript/items.js';
import { Builder, charEstimate, filler } from './builder.js';
import { ladderOptions, stateOf as baseState } from './ladder-state.js';
import { anthropicText, startServer, type TestServer } from './server.js';

const vision = { contextWindow: 40_000, maxOutput: 4000, vision: true };

const options = (extra: Partial<LadderOptions> = {}): LadderOptions => ladderOptions(vision, extra);
/** Every state here is forced: the rungs' own limits are under test, not the trigger. */
const stateOf = (items: Item[], o: LadderOptions, over: Parameters<typeof baseState>[2] = {}): LadderState =>
  baseState(items, o, { force: true, ...over });

/** A task, then per turn a long tool result, the model's note and the person's nudge. */
function shards(n: number, size = 6000): Builder {
  const b = new Builder();
  b.person('Task: make the suite pass.');
  for (let t = 0; t < n; t++) {
    b.tool('bash', { cmd: `shard ${t}` }, filler(size, `s${t}`));
    b.model(`shard ${t} done`);
    b.person(`next (${t})`);
  }
  return b;
}

describe('the free rungs', () => {
  it("elide's batch minimum defaults to a tenth of the target rounded up, at most 20,000", async () => {
    const b = shards(4);
    const minClear = async (target: number, o = options()) =>
      (await elideRung.apply(stateOf(b.items, o, { target }))).report.details!['minClear'];
    expect(await minClear(10_005)).toBe(1001);
    expect(await minClear(10_000)).toBe(1000);
    expect(await minClear(200_000)).toBe(20_000);
    expect(await minClear(500_000)).toBe(20_000);
    expect(await minClear(10_000, options({ elide: { minClear: 7 } }))).toBe(7);
  });

  it('their records span the first and the last item they replaced', async () => {
    const b = shards(8);
    const e = await elideRung.apply(stateOf(b.items, options(), { target: 1000 }));
    const ids = e.report.items;
    expect(ids.length).toBeGreaterThan(1);
    expect(e.record!.range).toEqual({ from: ids[0], to: ids[ids.length - 1] });

    const s = new Builder();
    s.person('Task: watch the screen.');
    for (let k = 0; k < 6; k++) {
      s.image(800, 600);
      s.model(`frame ${k}`);
    }
    // Images cost more than their placeholders (charEstimate sees no text in them).
    const estimate = (i: Item) => (i.kind === 'image' ? 1000 : charEstimate(i));
    const step = await shedRung.apply(stateOf(s.items, options({ estimate }), { target: 10 }));
    const shed = step.report.items;
    expect(shed).toHaveLength(3); // the newest three stay
    expect(step.record).toMatchObject({
      rung: 'shed',
      range: { from: shed[0], to: shed[2] },
      params: { ids: shed },
    });
  });
});

describe('the snapshot rung: image limits', () => {
  /** Shards after `inResults` screenshots inside tool results and `alone` on their own, `bytes` each. */
  function withImages(bytes: number, inResults: number, alone: number): Builder {
    const b = new Builder();
    b.person('Task: read the screenshots and the logs.');
    for (let k = 0; k < inResults; k++) {
      const call = b.call('screenshot', {}) as Item & { callId: string };
      b.result(call.callId, 'screenshot', [
        { type: 'image', mediaType: 'image/png', data: 'A'.repeat(bytes) } as never,
      ]);
    }
    for (let k = 0; k < alone; k++) {
      const image = b.image(100, 100);
      b.items[b.items.length - 1] = { ...image, data: 'B'.repeat(bytes) } as Item;
    }
    for (let t = 0; t < 4; t++) {
      b.tool('bash', { cmd: `log ${t}` }, filler(9000, `l${t}`));
      b.person(`and the next (${t})`);
    }
    b.model('Reading.');
    return b;
  }
  const pagesOf = (step: Awaited<ReturnType<typeof snapshotRung.apply>>): number =>
    Number(step.report.details?.['pages'] ?? 0);
  const limit = (images: { maxPerRequest?: number; maxBytesPerRequest?: number }) =>
    options({
      profile: {
        ...vision,
        images: { maxPerRequest: 20, maxBytesPerImage: 5_000_000, maxBytesPerRequest: 30_000_000, ...images },
      },
    });

  for (const [inResults, alone] of [
    [4, 0],
    [0, 4],
  ] as const) {
    it(`counts the images already in the request (${inResults} in tool results, ${alone} alone)`, async () => {
      const b = withImages(10, inResults, alone);
      // Four images present: a limit of 4 leaves no page, everything to image overflows (recorded).
      const none = await snapshotRung.apply(stateOf(b.items, limit({ maxPerRequest: 4 }), { target: 3000 }));
      expect(pagesOf(none)).toBe(0);
      expect(none.pending!.length).toBeGreaterThan(0);
      expect(none.record!.range).toEqual({
        from: none.pending![0]!.from,
        to: none.pending![none.pending!.length - 1]!.to,
      });
      // A limit of 8 leaves 4 pages.
      const four = await snapshotRung.apply(stateOf(b.items, limit({ maxPerRequest: 8 }), { target: 3000 }));
      expect(pagesOf(four)).toBeGreaterThan(0);
      expect(pagesOf(four)).toBeLessThanOrEqual(4);
    });

    it(`weighs the images already in the request against the byte limit (${inResults} in tool results, ${alone} alone)`, async () => {
      const bytes = 50_000;
      const b = withImages(bytes, inResults, alone);
      const full = await snapshotRung.apply(
        stateOf(b.items, limit({ maxBytesPerRequest: 4 * bytes + 100 }), { target: 3000 }),
      );
      expect(pagesOf(full)).toBe(0);
      expect(full.pending!.length).toBeGreaterThan(0);
      const room = await snapshotRung.apply(
        stateOf(b.items, limit({ maxBytesPerRequest: 4 * bytes + 1_000_000 }), { target: 3000 }),
      );
      expect(pagesOf(room)).toBeGreaterThan(0);
    });
  }

  it('without image limits in the profile: 20 images, 5 MB each, 32 MB in all', async () => {
    const b = shards(8, 9000);
    const step = await snapshotRung.apply(stateOf(b.items, options(), { target: 3000 }));
    expect(pagesOf(step)).toBeGreaterThan(10);
    expect(pagesOf(step)).toBeLessThanOrEqual(20);
  });
});

describe('the snapshot rung: tail fractions', () => {
  // Four shards of ~1,250 tokens, target 4,000: the 0.5 tail keeps the last shard verbatim (2,406
  // tokens after imaging), the 0.05 tail keeps none (1,502).
  const b = shards(4, 5000);
  const run = async (fractions: number[], overhead = 0) =>
    snapshotRung.apply(
      stateOf(b.items, options({ snapshotTail: { fractions } }), { target: 4000, overhead }),
    );
  const ids = (step: Awaited<ReturnType<typeof run>>) => step.items!.map((i) => i.id);
  const sum = (step: Awaited<ReturnType<typeof run>>) => step.tokens!.reduce((x, y) => x + y, 0);

  it('keeps the largest tail that fits: the first fraction when it fits', async () => {
    const big = await run([0.5, 0.05]);
    expect(ids(big)).toEqual(ids(await run([0.5])));
    expect(ids(big)).not.toEqual(ids(await run([0.05])));
  });

  it('counts the overhead: a tail that fits only without it gives way to the next fraction', async () => {
    const alone = await run([0.5], 2000);
    expect(sum(alone) + 2000).toBeGreaterThan(4000);
    const tight = await run([0.5, 0.05], 2000);
    expect(ids(tight)).toEqual(ids(await run([0.05], 2000)));
    expect(sum(tight) + 2000).toBeLessThanOrEqual(4000);
  });
});

describe('the snapshot rung: budgets from the state', () => {
  it('takes the page size limit from the profile: a page over it is an error naming the limit', async () => {
    const b = shards(4, 5000);
    const o = options({
      profile: {
        ...vision,
        images: { maxPerRequest: 20, maxBytesPerImage: 1000, maxBytesPerRequest: 30_000_000 },
      },
    });
    await expect(snapshotRung.apply(stateOf(b.items, o, { target: 4000 }))).rejects.toThrow(
      /exceeds the profile's 1000 per image/,
    );
  });

  it('images down to the target less the overhead', async () => {
    const b = shards(4, 5000);
    const step = await snapshotRung.apply(
      stateOf(b.items, options({ snapshotTail: { fractions: [0.05] } }), { target: 4000, overhead: 1500 }),
    );
    expect(step.pending).toEqual([]);
    expect(step.tokens!.reduce((x, y) => x + y, 0) + 1500).toBeLessThanOrEqual(4000);
  });

  it('keeps person messages verbatim within a tenth of the target by default', async () => {
    const b = new Builder();
    b.person('Task: make the suite pass.');
    b.tool('bash', { cmd: 'shard 0' }, filler(5000, 's0'));
    const said = b.person(`Careful: ${filler(3000, 'p')}`); // ~750 tokens
    for (let t = 1; t < 4; t++) {
      b.tool('bash', { cmd: `shard ${t}` }, filler(5000, `s${t}`));
      b.model(`shard ${t} done`);
    }
    b.person('next');
    const kept = async (personFraction?: number) => {
      const o = options({
        snapshotTail: { fractions: [0.3], ...(personFraction ? { personFraction } : {}) },
      });
      const step = await snapshotRung.apply(stateOf(b.items, o, { target: 4000 }));
      expect(step.report.applied).toBe(true);
      return step.items!.some((i) => i.id === said.id);
    };
    expect(await kept()).toBe(false); // 750 tokens > 400
    expect(await kept(0.25)).toBe(true); // ≤ 1000
  });

  it('writes its record as the machinery', async () => {
    const step = await snapshotRung.apply(stateOf(shards(4, 5000).items, options(), { target: 4000 }));
    expect(step.record).toMatchObject({ kind: 'compaction', author: 'machinery', rung: 'snapshot' });
  });
});

describe('the summary rung', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const client = () =>
    anthropicSummarizer({ model: 'claude-haiku-4-5', apiKey: 'k', baseURL: server!.url, maxRetries: 0 });

  it('with nothing pending, summarizes the middle left of the largest tail that leaves room', async () => {
    server = await startServer(() => ({ body: anthropicText('## Goal\nsuite passes') }));
    const b = shards(8, 9000);
    const ranges = async (fractions: number[], maxTokens: number) => {
      const o = options({
        snapshotTail: { fractions },
        summarizer: { client: client(), window: 200_000, maxTokens },
      });
      const step = await summarizeRung.apply(stateOf(b.items, o, { target: 20_000 }));
      expect(step.report.applied).toBe(true);
      return step.record!.params['ranges'] as IdRange[];
    };
    // Room enough for the 0.5 tail: it is kept; a summary budget that leaves no room for it: 0.05.
    const roomy = await ranges([0.5, 0.05], 1000);
    expect(roomy).toEqual(await ranges([0.5], 1000));
    expect(roomy).not.toEqual(await ranges([0.05], 1000));
    expect(await ranges([0.5, 0.05], 12_000)).toEqual(await ranges([0.05], 12_000));
    // Head (the task) and the tail stay out of the summary.
    expect(roomy[0]!.from).not.toBe(b.items[0]!.id);
    expect(roomy[roomy.length - 1]!.to).not.toBe(b.items[b.items.length - 1]!.id);
  });

  it('says how many chunks a summary took, plural included', async () => {
    server = await startServer(() => ({ body: anthropicText('## Goal\nsuite passes') }));
    const b = shards(6);
    const range = { from: b.items[1]!.id, to: b.items[b.items.length - 2]!.id };
    const o = options({ summarizer: { client: client(), window: 5000, maxTokens: 1000 } });
    const step = await summarizeRung.apply(stateOf(b.items, o, { pending: [range] }));
    const chunks = step.report.details!['chunks'] as number;
    expect(chunks).toBeGreaterThan(1);
    expect(step.record).toMatchObject({ kind: 'compaction', author: 'machinery', rung: 'summarize' });
    expect(step.report.reason).toMatch(
      new RegExp(
        `^summarized ${b.items.length - 2} items with claude-haiku-4-5 in ${chunks} chunks \\(${server.requests.length} calls\\)$`,
      ),
    );
  });

  it('keeps the items when the summary is exactly as large as what it replaces; one token less, it applies', async () => {
    const b = new Builder();
    b.person('Task');
    b.model('a'.repeat(100));
    b.model('b'.repeat(100));
    b.person('next');
    const range = { from: b.items[1]!.id, to: b.items[2]!.id };
    // The two items cost charEstimate each; the summary item costs ceil(len / 4) + 4.
    const replaced = charEstimate(b.items[1]!) + charEstimate(b.items[2]!);
    let text = '';
    server = await startServer(() => ({ body: anthropicText(text) }));
    const o = options({ summarizer: { client: client(), window: 100_000, maxTokens: 1000 } });
    text = 'x'.repeat((replaced - 4) * 4);
    const same = await summarizeRung.apply(stateOf(b.items, o, { pending: [range] }));
    expect(same.report.applied).toBe(false);
    expect(same.items).toBeUndefined();
    text = 'x'.repeat((replaced - 5) * 4);
    const less = await summarizeRung.apply(stateOf(b.items, o, { pending: [range] }));
    expect(less.report.applied).toBe(true);
    expect(less.report.tokensAfter).toBe(less.report.tokensBefore - 1);
  });

  it("says how often the summarizer's own overflow made it re-chunk", async () => {
    // The first call is refused as too long (Anthropic's wording), the rest answer.
    server = await startServer((_req, i) =>
      i === 0
        ? {
            status: 400,
            body: {
              type: 'error',
              error: {
                type: 'invalid_request_error',
                message: 'prompt is too long: 250000 tokens > 200000 maximum',
              },
            },
          }
        : { body: anthropicText('## Goal\nsuite passes') },
    );
    const b = shards(3);
    const range = { from: b.items[1]!.id, to: b.items[b.items.length - 2]!.id };
    const o = options({ summarizer: { client: client(), window: 100_000, maxTokens: 1000 } });
    const step = await summarizeRung.apply(stateOf(b.items, o, { pending: [range] }));
    expect(step.report.applied).toBe(true);
    expect(step.report.details).toMatchObject({ overflows: 1 });
    expect(step.report.reason).toMatch(/ calls; re-chunked 1× after the summarizer's own overflow\)$/);
  });

  it('names itself in the reports of the cases it cannot run', async () => {
    const tiny = new Builder();
    tiny.person('only');
    const empty = await summarizeRung.apply(stateOf(tiny.items, options()));
    expect(empty.report).toMatchObject({ rung: 'summarize', applied: false });
    const none = await summarizeRung.apply(stateOf(shards(4).items, options(), { target: 100 }));
    expect(none.report).toMatchObject({ rung: 'summarize', applied: false });
  });
});
