/**
 * The ladder's invariants as property tests, over seeded generated histories and every real
 * transcript in test/fixtures (issue 12):
 * - the tail — the latest person message and everything after it — reaches the request verbatim, and
 *   no summary covers any of it;
 * - every person message stays verbatim while they all fit the person budget;
 * - no rung produces a request larger than its input, and the whole pass neither;
 * - the same record gives the same bytes, and replaying the records rebuilds the same request.
 * The summarizer is the real `@anthropic-ai/sdk` client against a loopback server.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeBudget } from '../../src/compaction/budget.js';
import { climb, type LadderOptions, type LadderResult } from '../../src/compaction/ladder.js';
import { prepareRequest, RENDERER, setupCompaction } from '../../src/compaction/policy.js';
import { rebuildRequest } from '../../src/compaction/record.js';
import { DEFAULT_PERSON_FRACTION } from '../../src/compaction/rungs.js';
import { itemEstimator } from '../../src/compaction/estimate.js';
import { anthropicSummarizer } from '../../src/compaction/summarize.js';
import { resolveProfile } from '../../src/providers/resolve.js';
import { sha256Hex } from '../../src/transcript/hash.js';
import { importTranscript } from '../../src/transcript/import/index.js';
import type { Item } from '../../src/transcript/items.js';
import { Builder, charEstimate } from './builder.js';
import { anthropicText, startServer, type TestServer } from './server.js';

let server: TestServer;
beforeAll(async () => {
  // A short summary whatever the input: the invariants are about what the ladder keeps, not wording.
  server = await startServer(() => ({ body: anthropicText('## Goal\nsummary of the middle') }));
});
afterAll(() => server.close());

const isPerson = (i: Item): boolean => i.kind === 'message' && i.author === 'person';

/** Whether `after` is `before` as it went out, or `before` with its images shed (placeholders). */
function verbatimOrShed(before: Item, after: Item): boolean {
  if (JSON.stringify(before) === JSON.stringify(after)) return true;
  if (before.id !== after.id) return false;
  if (before.kind === 'image') return after.kind === 'context';
  if (before.kind === 'tool_result' && after.kind === 'tool_result')
    return before.content.every((p, k) =>
      p.type === 'image'
        ? after.content[k]?.type === 'text'
        : JSON.stringify(after.content[k]) === JSON.stringify(p),
    );
  return false;
}

interface Figures {
  histories: number;
  compacted: number;
  tailChecked: number;
  personsAllChecked: number;
  rungsApplied: Record<string, number>;
  repeated: number;
}

/** Checks every invariant of one pass over `path` (compaction items excluded from `path`). */
async function checkPass(
  path: Item[],
  r: LadderResult,
  /** A second pass over the same record (`undefined`: not run for this history). */
  again: LadderResult | undefined,
  personBudget: number,
  estimate: (i: Item) => number,
  figures: Figures,
): Promise<void> {
  figures.histories++;
  if (r.records.length) figures.compacted++;
  for (const g of r.report.rungs)
    if (g.applied) figures.rungsApplied[g.rung] = (figures.rungsApplied[g.rung] ?? 0) + 1;
  // Same record, same bytes (the wall time aside).
  const bytes = (x: LadderResult): string =>
    sha256Hex(JSON.stringify({ ...x, report: { ...x.report, timeMs: 0 } }));
  if (again) {
    expect(bytes(again)).toBe(bytes(r));
    figures.repeated++;
  }
  // Replay rebuilds the same request with no estimate and no model call.
  if (r.records.length) {
    const withRecords = path.slice();
    for (const rec of r.records) {
      const last = withRecords[withRecords.length - 1]!;
      withRecords.push({
        ...rec,
        id: `cx${withRecords.length}`,
        parent: last.id,
        turn: last.turn,
        time: last.time,
      } as Item);
    }
    const calls = server.requests.length;
    const rebuilt = (await rebuildRequest(withRecords, RENDERER)).items;
    expect(sha256Hex(JSON.stringify(rebuilt))).toBe(sha256Hex(JSON.stringify(r.items)));
    expect(server.requests.length).toBe(calls);
  }
  // One source of truth: the rung lines chain from the record's tokens to the request's.
  const rungs = r.report.rungs;
  if (rungs.length) {
    expect(rungs[0]!.tokensBefore).toBe(r.report.tokensRecord);
    for (let k = 1; k < rungs.length; k++) expect(rungs[k]!.tokensBefore).toBe(rungs[k - 1]!.tokensAfter);
    expect(rungs[rungs.length - 1]!.tokensAfter).toBe(r.report.tokensAfter);
  }
  // No rung makes the request larger; nor does the pass.
  for (const g of r.report.rungs) expect(g.tokensAfter, g.rung).toBeLessThanOrEqual(g.tokensBefore);
  expect(r.report.tokensAfter).toBeLessThanOrEqual(r.report.tokensBefore);

  const first = path.findIndex(isPerson);
  const latest = path.findLastIndex(isPerson);
  if (latest < 0) return;
  // The latest person message is in the request as it was typed.
  expect(r.items).toContainEqual(path[latest]);
  if (latest > first) {
    // The tail: the latest person message and everything after it, at the end, in order.
    const tail = path.slice(latest);
    const end = r.items.slice(r.items.length - tail.length);
    expect(end.map((i) => i.id)).toEqual(tail.map((i) => i.id));
    tail.forEach((t, k) => expect(verbatimOrShed(t, end[k]!), t.id).toBe(true));
    // No summary covers any of it.
    const tailIds = new Set(tail.map((i) => i.id));
    for (const s of r.items)
      if (s.kind === 'summary' && s.covers) expect(tailIds.has(s.covers.to), s.id).toBe(false);
    figures.tailChecked++;
  }
  // Every person message verbatim while they all fit the person budget (and are few enough that the
  // page limit leaves each its own island).
  const persons = path.filter(isPerson);
  const personTokens = persons.reduce((a, p) => a + estimate(p), 0);
  if (persons.length <= 5 && personTokens <= personBudget) {
    for (const p of persons) expect(r.items, p.id).toContainEqual(p);
    figures.personsAllChecked++;
  }
}

type Step = { t: 'person' | 'model' | 'tool' | 'par' | 'context'; n: number } | { t: 'image' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant('person' as const), n: fc.integer({ min: 1, max: 600 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant('model' as const), n: fc.integer({ min: 1, max: 3000 }) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({ t: fc.constant('tool' as const), n: fc.integer({ min: 1, max: 4000 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant('par' as const), n: fc.integer({ min: 1, max: 3000 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant('context' as const), n: fc.integer({ min: 1, max: 2000 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ t: 'image' } as Step) },
);

/** Distinct words, so nothing compresses to nothing and text differs item to item. */
function words(n: number, seed: number): string {
  let s = '';
  for (let k = 0; s.length < n; k++) s += `w${seed}_${k} `;
  return s.slice(0, n);
}

function history(steps: Step[]): Item[] {
  const b = new Builder();
  b.person('Task: ' + words(120, 0));
  let k = 0;
  for (const s of steps) {
    k++;
    if (s.t === 'person') b.person(words(s.n, k));
    else if (s.t === 'model') b.model(words(s.n, k));
    else if (s.t === 'tool') b.tool('bash', { k }, words(s.n, k));
    else if (s.t === 'par') {
      b.call('p', { k }, `P${k}`);
      b.call('q', { k }, `Q${k}`);
      b.result(`P${k}`, 'p', words(s.n, k));
      b.result(`Q${k}`, 'q', words(s.n, k + 1));
    } else if (s.t === 'context') {
      // The builder has no context helper: a model message turned into surface context, same id.
      const m = b.model('');
      b.items[b.items.length - 1] = { ...m, kind: 'context', author: 'surface', text: words(s.n, k) } as Item;
    } else b.image(400, 300);
  }
  return b.items;
}

describe('ladder invariants', () => {
  it('hold over 1,000 seeded generated histories (vision with snapshots, text-only with a summary)', async () => {
    const vision = setupCompaction({ model: 'claude-sonnet-4-5' });
    const summarizer = {
      client: anthropicSummarizer({
        model: 'claude-haiku-4-5',
        apiKey: 'k',
        baseURL: server.url,
        maxRetries: 0,
      }),
      window: 50_000,
      maxTokens: 300,
    };
    const figures: Figures = {
      histories: 0,
      compacted: 0,
      tailChecked: 0,
      personsAllChecked: 0,
      repeated: 0,
      rungsApplied: {},
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { minLength: 1, maxLength: 40, size: 'max' }),
        fc.integer({ min: 2000, max: 16_000 }),
        fc.boolean(),
        async (steps, window, seesImages) => {
          const path = history(steps);
          const profile = seesImages
            ? { ...vision.profile, contextWindow: window, maxOutput: 1000 }
            : { contextWindow: window, maxOutput: 1000, vision: false };
          const o: LadderOptions = {
            model: 'm',
            profile,
            budget: computeBudget(profile, { margin: 0 }),
            estimate: charEstimate,
            estimateText: (t) => Math.ceil(t.length / 4),
            clock: () => 0,
            summarizer,
            ...(seesImages ? { renderer: RENDERER, page: vision.page! } : {}),
          };
          const r = await climb(path, o);
          // A second full pass on every fourth history (the replay below runs on all of them).
          const again = figures.histories % 4 === 0 ? await climb(path, o) : undefined;
          const personBudget = Math.floor(o.budget.target * DEFAULT_PERSON_FRACTION);
          await checkPass(path, r, again, personBudget, charEstimate, figures);
        },
      ),
      { numRuns: 1000, seed: 1212 },
    );
    console.log('generated', JSON.stringify(figures));
    expect(figures.histories).toBe(1000);
    // Not vacuous (seed 1212): the bounds sit well under the measured counts.
    expect(figures.compacted).toBeGreaterThan(300);
    expect(figures.tailChecked).toBeGreaterThan(400);
    expect(figures.personsAllChecked).toBeGreaterThan(100);
    expect(figures.rungsApplied['snapshot'] ?? 0).toBeGreaterThan(25);
    expect(figures.rungsApplied['elide'] ?? 0).toBeGreaterThan(200);
    expect(figures.repeated).toBe(250);
    expect(figures.rungsApplied['summarize'] ?? 0).toBeGreaterThan(200);
  }, 300_000);

  const fixtures = join(import.meta.dirname, '../fixtures/transcripts');
  /**
   * The real Claude Code sessions (subagent logs aside) up to 500 KB: the three larger real sessions
   * (two Claude Code, the Codex rollout; 214–261 items each) would triple this sweep's time and are
   * imported by test/cli/import-folder.test.ts instead.
   */
  const claudeSessions = (): string[] =>
    readdirSync(join(fixtures, 'real', 'claude-code'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.jsonl') && !f.includes('subagents') && !/(^|\/)agent-/.test(f))
      .map((f) => join('real', 'claude-code', f))
      .filter((f) => statSync(join(fixtures, f)).size <= 500 * 1024);

  /** Every invariant over each file, for `models` (text-only ones skip files with images) and windows. */
  async function sweep(
    files: readonly string[],
    models: readonly string[],
    fractions: readonly number[],
    forces: readonly boolean[],
  ): Promise<Figures> {
    const figures: Figures = {
      histories: 0,
      compacted: 0,
      tailChecked: 0,
      personsAllChecked: 0,
      repeated: 0,
      rungsApplied: {},
    };
    const summarizer = {
      client: anthropicSummarizer({
        model: 'claude-haiku-4-5',
        apiKey: 'k',
        baseURL: server.url,
        maxRetries: 0,
      }),
      window: 50_000,
      maxTokens: 300,
    };
    for (const f of files) {
      const path = importTranscript(readFileSync(join(fixtures, f), 'utf8')).items;
      const hasImages = path.some(
        (i) => i.kind === 'image' || (i.kind === 'tool_result' && i.content.some((p) => p.type === 'image')),
      );
      for (const model of models.filter((m) => !hasImages || resolveProfile(m).profile.vision)) {
        const size = (await prepareRequest(path, { model, rungs: [] })).estimate;
        // Windows that make the request fit with room, just fit, and need every rung.
        for (const fraction of fractions) {
          for (const force of forces) {
            const window = 100 + Math.ceil(size * fraction);
            const options = { model, budget: { window, maxOutput: 100, margin: 0 }, summarizer };
            const r = await prepareRequest(path, options, force);
            const again = await prepareRequest(path, options, force);
            const personBudget = Math.floor(r.setup.budget.target * DEFAULT_PERSON_FRACTION);
            const est = itemEstimator(r.setup.profile, { model, calibrator: r.setup.calibrator });
            const strip = (x: typeof r): LadderResult & { body: unknown } => ({
              items: x.items,
              records: x.records,
              report: x.report,
              rendered: x.rendered,
              body: x.body,
            });
            await checkPass(path, strip(r), strip(again), personBudget, est, figures);
          }
        }
      }
    }
    return figures;
  }

  it('hold over every real transcript in test/fixtures, for a vision and a text-only model', async () => {
    // The written fixtures, the real public transcripts (real/, sources in its README) and 17 of the 19
    // real Claude Code sessions.
    const files = [
      ...readdirSync(fixtures).filter((f) => /\.(jsonl?|json)$/.test(f)),
      ...readdirSync(join(fixtures, 'real'))
        .filter((f) => !['README.md', 'claude-code', 'codex'].includes(f))
        .map((f) => join('real', f)),
      ...claudeSessions(),
    ];
    expect(files.length).toBeGreaterThanOrEqual(12);
    const figures = await sweep(
      files,
      ['claude-sonnet-4-5', 'gpt-3.5-turbo'],
      [0.3, 0.5, 0.8, 1.5],
      [false, true],
    );
    console.log('fixtures', files.length, JSON.stringify(figures));
    // 6 written fixtures: 48 passes (those with images run one model); 6 real ones and 17 real Claude
    // Code sessions, none with images, 2 models × 8 windows each: 368.
    expect(figures.histories).toBe(416);
    expect(figures.compacted).toBeGreaterThan(100);
  }, 300_000);
});
