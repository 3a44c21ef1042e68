import { describe, expect, it } from 'vitest';
import { elide } from '../../src/compaction/elide.js';
import { isElided } from '../../src/compaction/placeholders.js';
import type { Item } from '../../src/transcript/items.js';
import { Builder, charEstimate, filler } from './builder.js';

const est = (items: Item[]) => items.map(charEstimate);

function history() {
  const b = new Builder();
  b.person('Fix the build please.');
  const old = b.tool('bash', { cmd: 'npm test' }, filler(40_000, 'test'));
  const err = b.tool('bash', { cmd: 'npm run lint' }, filler(40_000, 'lint'), { isError: true });
  const pinned = b.tool('read_file', { path: 'NOTES.md' }, filler(40_000, 'notes'), { pinned: true });
  const listing = b.tool(
    'ls',
    { dir: 'src' },
    'src/compaction/budget.ts\nsrc/compaction/elide.ts\n' + filler(40_000, 'ls'),
  );
  const produced = b.tool('gen', { kind: 'report' }, filler(40_000, 'gen'), { files: ['out/report.txt'] });
  const byId = b.tool('search', { q: 'x' }, filler(40_000, 'search'));
  b.person('Now look at the elide module.');
  b.tool('read_file', { path: 'src/compaction/elide.ts' }, 'export function elide() {}');
  b.model(`I checked out/report.txt and the search in ${(byId as { callId: string }).callId}.`);
  b.person('ok');
  b.person('and?');
  const recent = b.tool('bash', { cmd: 'npm test' }, filler(40_000, 'recent'));
  return { b, old, err, pinned, listing, produced, byId, recent };
}

describe('elide', () => {
  it('elides only uneventful old results and keeps pairing ids', () => {
    const h = history();
    const r = elide(h.b.items, est(h.b.items), charEstimate, { minClear: 1000 });
    expect(r.report.items).toEqual([h.old.id]);
    const idx = h.b.items.indexOf(h.old);
    const placeholder = r.items[idx]!;
    expect(isElided(placeholder)).toBe(true);
    expect(placeholder).toMatchObject({
      id: h.old.id,
      callId: (h.old as { callId: string }).callId,
      name: 'bash',
    });
    expect((placeholder as { content: { text: string }[] }).content[0]!.text).toMatch(
      /bash returned 40,000 chars, item i3/,
    );
    expect(r.report.tokensAfter).toBeLessThan(r.report.tokensBefore - 9000);
    expect(r.tokens[idx]).toBe(charEstimate(placeholder));
    // Errors, pinned, referred-to (listing feeds a later call, produced file mentioned, id mentioned) and recent stay.
    for (const kept of [h.err, h.pinned, h.listing, h.produced, h.byId, h.recent]) {
      expect(r.items[h.b.items.indexOf(kept)]).toBe(kept);
    }
  });

  it('clears nothing when the batch is below the minimum', () => {
    const h = history();
    const r = elide(h.b.items, est(h.b.items), charEstimate, { minClear: 20_000 });
    expect(r.report.applied).toBe(false);
    expect(r.items).toEqual(h.b.items);
    expect(r.report.reason).toMatch(/only 10004 tokens clearable .* batch minimum is 20000/);
  });

  it('keeps an earlier elision whatever the batch size, and never modifies its input', () => {
    const h = history();
    const snapshot = JSON.stringify(h.b.items);
    const r = elide(h.b.items, est(h.b.items), charEstimate, {
      minClear: 1e9,
      sticky: new Set([h.recent.id]),
    });
    expect(r.report.items).toEqual([h.recent.id]);
    expect(JSON.stringify(h.b.items)).toBe(snapshot);
  });

  it('respects keepTurns', () => {
    const h = history();
    const r = elide(h.b.items, est(h.b.items), charEstimate, { minClear: 1, keepTurns: 0 });
    expect(r.report.items).toEqual([h.old.id, h.recent.id]);
  });
});
