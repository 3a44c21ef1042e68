import { describe, expect, it } from 'vitest';
import { prepareRequest, RENDERER } from '../../src/compaction/policy.js';
import { rebuildRequest } from '../../src/compaction/record.js';
import { renderPages } from '../../src/compaction/snapshot.js';
import { anthropicSummarizer } from '../../src/compaction/summarize.js';
import { startProviderServer } from '../helpers/provider-server.js';
import { formatItems } from '../../src/compaction/text.js';
import { decode, normalize } from '../../src/render/index.js';
import { resolveProfile } from '../../src/providers/index.js';
import type { ImageItem, Item } from '../../src/transcript/items.js';
import { validatePairing } from '../../src/views/index.js';
import { Builder, filler } from './builder.js';

const SENTENCES = [
  'The committee met on a wet Tuesday to decide what should become of the old mill by the river.',
  'Nobody could agree whether the wheel should turn again, or whether the building should be sold.',
  'Mrs Hale argued at length that the village owed its name to the mill and ought to keep it.',
  'Her neighbour replied that sentiment did not pay for roof tiles, and the room fell quiet.',
  'In the end they resolved to ask the county for a survey and to meet again in the spring.',
];

/** English prose in paragraphs of a few sentences, deterministic. */
function prose(chars: number, seed = 0): string {
  const out: string[] = [];
  let len = 0;
  for (let i = seed; len < chars; i++) {
    const para = [0, 1, 2, 3].map((k) => SENTENCES[(i + k) % SENTENCES.length]).join(' ');
    out.push(para);
    len += para.length + 2;
  }
  return out.join('\n\n');
}

function proseHistory(turns: number, chars: number): Builder {
  const b = new Builder();
  b.person('Task: draft the parish history. Use British spelling. Never invent dates.');
  for (let t = 0; t < turns; t++) {
    b.model(prose(chars, t));
    b.tool('read_file', { path: `notes/${t}.md` }, prose(chars / 4, t + 1), { isError: t % 2 === 0 });
  }
  b.person('Now tighten chapter three.');
  b.model('Working on it.');
  return b;
}

function appendRecords(path: readonly Item[], records: { kind: 'compaction' }[]): Item[] {
  const out = path.slice();
  for (const r of records) {
    const last = out[out.length - 1]!;
    out.push({ ...r, id: `c${out.length}`, parent: last.id, turn: last.turn, time: last.time } as Item);
  }
  return out;
}

describe('snapshot rung with the real renderer and profiles', () => {
  for (const model of ['claude-sonnet-4-5', 'gpt-5.4']) {
    it(`images English prose at least 6× cheaper than text on ${model} in 4x6`, async () => {
      const b = proseHistory(30, 8000);
      const r = await prepareRequest(b.items, { model, budget: { window: 60_000 }, variant: '4x6' });
      const s = r.report.snapshot!;
      expect(s.variant).toBe('4x6');
      expect(s.pages).toBeGreaterThan(1);
      expect(s.ratio).toBeGreaterThanOrEqual(6);
      expect(r.report.fits).toBe(true);
      expect(validatePairing(r.items)).toEqual([]);
      // The head and the last person message are verbatim text.
      expect(r.items[0]).toBe(b.items[0]);
      expect(r.items.some((i) => i === b.items[b.items.length - 2])).toBe(true);
    });
  }

  it('pages decode back to the transcript text, including a trimmed last page', async () => {
    const b = proseHistory(3, 30_000);
    const run = b.items.slice(1, 6);
    const text = formatItems(run);
    const page = { width: 812, height: 1512, cell: '4x6' as const, scale: 1, tokens: 1566 };
    const pages = await renderPages(text, RENDERER, page, true);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages[pages.length - 1]!.height).toBeLessThan(1512);
    expect(decode(pages.map((p) => p.png))).toBe(normalize(text));
    const short = await renderPages('--- person (turn 1) ---\nhi', RENDERER, page, true);
    expect(short).toHaveLength(1);
    expect(short[0]!.height).toBe(12);
  });

  it('keeps every person message verbatim in its place and never splits a call from its result', async () => {
    const b = new Builder();
    b.person('Task: refactor the store.');
    const corrections: Item[] = [];
    for (let t = 0; t < 12; t++) {
      b.model(prose(5000, t));
      b.call('read', { t }, `A${t}`);
      b.call('grep', { t }, `B${t}`);
      b.result(`A${t}`, 'read', prose(2000, t), { isError: true });
      b.result(`B${t}`, 'grep', prose(2000, t + 1), { isError: true });
      corrections.push(b.person(`Correction ${t}: keep the public API stable.`));
    }
    const r = await prepareRequest(b.items, { model: 'claude-sonnet-4-5', budget: { window: 50_000 } }, true);
    expect(r.report.snapshot!.pages).toBeGreaterThan(0);
    const order = r.items.filter((i) => corrections.includes(i));
    expect(order).toEqual(corrections);
    expect(validatePairing(r.items)).toEqual([]);
    expect(r.repairs).toEqual([]);
  });

  it('gives the same bytes for the same input, and a rebuild from the record matches', async () => {
    const b = proseHistory(14, 6000);
    const before = JSON.stringify(b.items);
    const one = await prepareRequest(b.items, { model: 'claude-sonnet-4-5', budget: { window: 40_000 } });
    const two = await prepareRequest(b.items, { model: 'claude-sonnet-4-5', budget: { window: 40_000 } });
    expect(JSON.stringify(one.body)).toBe(JSON.stringify(two.body));
    expect(one.records.map((r) => r.rung)).toContain('snapshot');
    expect(one.report.fits).toBe(true);
    expect(JSON.stringify(b.items)).toBe(before);
    const path = appendRecords(b.items, one.records);
    const rebuilt = await rebuildRequest(path, RENDERER);
    expect(JSON.stringify(rebuilt.items)).toBe(JSON.stringify(one.items));
    // And the policy on the path with its records sends the same body without compacting again.
    const again = await prepareRequest(path, { model: 'claude-sonnet-4-5', budget: { window: 40_000 } });
    expect(again.records).toEqual([]);
    expect(JSON.stringify(again.body)).toBe(JSON.stringify(one.body));
  });

  it('keeps the page count within the profile limit and says what did not fit', async () => {
    const base = resolveProfile('claude-sonnet-4-5');
    const tight = {
      ...base,
      profile: { ...base.profile, images: { ...base.profile.images, maxPerRequest: 3 } },
    };
    const b = proseHistory(30, 8000);
    const r = await prepareRequest(b.items, {
      model: 'claude-sonnet-4-5',
      resolved: tight,
      budget: { window: 60_000 },
    });
    const images = r.items.filter((i): i is ImageItem => i.kind === 'image');
    expect(images.length).toBeLessThanOrEqual(3);
    expect(r.report.reasons.join('\n')).toMatch(/left out of the request/);
    expect(r.items.some((i) => i.kind === 'summary' && /are left out of this request/.test(i.text))).toBe(
      true,
    );
  });

  it('summarizes what does not fit the image limit, from the original items, and replays it', async () => {
    const server = await startProviderServer({ reply: () => ({ text: '## Goal\nparish history' }) });
    try {
      const base = resolveProfile('claude-sonnet-4-5');
      const tight = {
        ...base,
        profile: { ...base.profile, images: { ...base.profile.images, maxPerRequest: 3 } },
      };
      const b = proseHistory(30, 8000);
      const summarizer = {
        client: anthropicSummarizer({
          model: 'claude-haiku-4-5',
          apiKey: 'k',
          baseURL: server.anthropicBaseURL,
          maxRetries: 0,
        }),
        window: 150_000,
      };
      const options = { model: 'claude-sonnet-4-5', resolved: tight, budget: { window: 60_000 }, summarizer };
      const r = await prepareRequest(b.items, options);
      expect(r.records.map((c) => c.rung)).toEqual(['snapshot', 'summarize']);
      expect(r.items.filter((i) => i.kind === 'image').length).toBeLessThanOrEqual(3);
      expect(r.items.some((i) => i.kind === 'summary' && i.text === '## Goal\nparish history')).toBe(true);
      // The summary reads the record: results elided in the request arrive whole.
      const asked = JSON.stringify(server.requests[0]!.body);
      expect(asked).toContain('--- result read_file');
      expect(asked).not.toContain('[elided by glyphfold');
      expect(r.records[0]!.params['overflow']).not.toEqual([]);
      const calls = server.requests.length;
      const again = await prepareRequest(appendRecords(b.items, r.records), options);
      expect(again.records).toEqual([]);
      expect(JSON.stringify(again.body)).toBe(JSON.stringify(r.body));
      expect(server.requests.length).toBe(calls);
    } finally {
      await server.close();
    }
  });

  it('never gives snapshots to a model without vision, and says why', async () => {
    const b = proseHistory(30, 8000);
    const r = await prepareRequest(b.items, { model: 'o3-mini', budget: { window: 60_000 } });
    expect(r.items.some((i) => i.kind === 'image')).toBe(false);
    expect(r.report.reasons).toContain('model has no vision: snapshots skipped');
    expect(r.report.rungs.find((g) => g.rung === 'snapshot')).toMatchObject({ applied: false });
  });

  it('sheds old screenshots with the real image rule', async () => {
    const b = new Builder();
    b.person('Click through the wizard.');
    for (let t = 0; t < 8; t++) {
      b.image(1280, 800);
      b.model(filler(400, `step${t}`));
    }
    const r = await prepareRequest(b.items, {
      model: 'claude-sonnet-4-5',
      budget: { window: 12_000 },
      shed: { keepImages: 2 },
    });
    expect(r.report.rungs.find((g) => g.rung === 'shed')).toMatchObject({ applied: true });
    expect(r.items.filter((i) => i.kind === 'image')).toHaveLength(2);
  });
});
