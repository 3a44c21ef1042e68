/**
 * Issue 12: a recorder that reuses one call id for sequential calls (27 calls, 22 distinct ids, as in a
 * published OpenAI Chat trajectory). Every call and its output reach the compacted request, and the
 * report's figures chain from the record to the request.
 */
import { describe, expect, it } from 'vitest';
import { prepareRequest } from '../../src/compaction/policy.js';
import { formatReport } from '../../src/compaction/report.js';
import type { OpenAIChatBody } from '../../src/views/index.js';
import { Builder, filler } from './builder.js';

function reusedIds(): Builder {
  const b = new Builder();
  b.person('Fix the failing test in tests/test_parser.py.');
  for (let n = 0; n < 27; n++) {
    const id = n < 22 ? `call_${n}` : `call_${(n - 22) * 4}`;
    b.model(`Step ${n}: running the next command.`);
    b.call('bash', { cmd: `step ${n}` }, id);
    b.result(id, 'bash', `OUTPUT-${n}\n${filler(1200, `s${n}`)}`);
  }
  b.person('Now summarize what you changed.');
  return b;
}

describe('compaction of a history whose recorder reused call ids', () => {
  it('keeps all 27 calls on the wire, compacted or not, and fits', async () => {
    const b = reusedIds();
    const plain = await prepareRequest(b.items, { model: 'gpt-4o', wire: 'openai-chat', rungs: [] });
    const calls = (body: OpenAIChatBody): number =>
      body.messages.reduce((a, m) => a + (m.role === 'assistant' ? (m.tool_calls?.length ?? 0) : 0), 0);
    expect(calls(plain.body)).toBe(27);
    expect(plain.repairs.filter((r) => r.kind === 'rekeyed_duplicate_id')).toHaveLength(5);
    const window = Math.ceil(plain.estimate * 0.6) + 1000;
    const r = await prepareRequest(
      b.items,
      // 4x6 pages: this test is about call ids surviving compaction, and the dense page makes the
      // snapshot rung, not only the summary, take part at this budget.
      {
        model: 'gpt-4o',
        wire: 'openai-chat',
        variant: '4x6',
        budget: { window, maxOutput: 1000, margin: 0 },
      },
      true,
    );
    expect(r.report.fits).toBe(true);
    // Every step's call and output is in the request: as text on the wire, or on the snapshot pages
    // (whose source text is what was rendered), each call exactly once.
    const wire = JSON.stringify(r.body);
    const pages = r.rendered.map((run) => run.text).join('\n');
    for (let n = 0; n < 27; n++) {
      const where = [wire.includes(`OUTPUT-${n}`), pages.includes(`OUTPUT-${n}`)].filter(Boolean).length;
      expect(where, `OUTPUT-${n}`).toBe(1);
    }
    const onPages = r.rendered.flatMap((run) => run.items).filter((i) => i.kind === 'tool_call');
    expect(onPages.length + calls(r.body)).toBe(27);
  });

  it('reports figures that add up: rungs chain from the record to the request', async () => {
    const b = reusedIds();
    const plain = await prepareRequest(b.items, { model: 'claude-sonnet-4-5', rungs: [] });
    const budget = { window: Math.ceil(plain.estimate * 0.5) + 1000, maxOutput: 1000, margin: 0 };
    const first = await prepareRequest(b.items, { model: 'claude-sonnet-4-5', budget }, true);
    // A later pass over the record with its compaction: the request as it stands is the compacted one,
    // while the rungs start again from the whole record.
    const path = b.items.slice();
    for (const rec of first.records) {
      const last = path[path.length - 1]!;
      path.push({
        ...rec,
        id: `c${path.length}`,
        parent: last.id,
        turn: last.turn,
        time: last.time,
      } as never);
    }
    const again = await prepareRequest(path, { model: 'claude-sonnet-4-5', budget }, true);
    const rep = again.report;
    expect(rep.tokensBefore).toBe(first.report.tokensAfter);
    expect(rep.tokensRecord).toBe(plain.estimate);
    expect(rep.rungs[0]!.tokensBefore).toBe(rep.tokensRecord);
    for (let k = 1; k < rep.rungs.length; k++)
      expect(rep.rungs[k]!.tokensBefore).toBe(rep.rungs[k - 1]!.tokensAfter);
    expect(rep.rungs[rep.rungs.length - 1]!.tokensAfter).toBe(rep.tokensAfter);
    expect(formatReport(rep)).toMatch(/the rungs start from the whole record, [\d,]+ tokens/);
  });
});
