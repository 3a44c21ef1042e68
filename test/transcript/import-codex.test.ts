import { describe, expect, it } from 'vitest';
import { importTranscript } from '../../src/transcript/import/index.js';
import { KIND_AUTHORS } from '../../src/transcript/items.js';
import { calls, expectLinearPath, fixture, results } from './fixtures.js';

const text = fixture('codex.jsonl');

describe('codex importer', () => {
  const r = importTranscript(text, { idPrefix: 'cx' });

  it('detects the format and builds a linear path', () => {
    expect(r.format).toBe('codex');
    expectLinearPath(r.items, 'cx');
    for (const item of r.items) expect(KIND_AUTHORS[item.kind]).toContain(item.author);
  });

  it('takes base instructions as system, injected user messages as context', () => {
    expect(r.system).toMatch(/^You are Codex/);
    const context = r.items.filter((i) => i.kind === 'context');
    expect(context.map((c) => (c.kind === 'context' ? c.source : ''))).toEqual([
      'agents.md',
      'environment_context',
    ]);
    expect(r.items.filter((i) => i.kind === 'message' && i.author === 'person')).toHaveLength(3);
  });

  it('reads response items only, not the event_msg echoes', () => {
    const person = r.items.filter((i) => i.kind === 'message' && i.author === 'person');
    expect(person[0]).toMatchObject({ text: expect.stringContaining('panics on empty input') });
    expect(r.items.filter((i) => i.kind === 'message' && i.author === 'model')).toHaveLength(2);
  });

  it('keeps reasoning summaries and encrypted content, including reasoning-only steps', () => {
    const reasoning = r.items.filter((i) => i.kind === 'reasoning');
    expect(reasoning).toHaveLength(4);
    for (const x of reasoning)
      expect(x).toMatchObject({ provider: 'openai', encrypted: expect.stringMatching(/^gAAAAABp/) });
    expect(reasoning[1]).toMatchObject({ text: '' });
  });

  it('pairs function and custom tool calls, flags non-zero exits, keeps the orphan call', () => {
    expect(calls(r.items).map((c) => c.name)).toEqual([
      'shell',
      'shell',
      'apply_patch',
      'shell',
      'apply_patch',
      'shell',
      'shell',
      'shell',
    ]);
    expect(calls(r.items)[0]!.input).toMatchObject({
      command: ['bash', '-lc', expect.stringContaining('rg -n')],
    });
    expect(typeof calls(r.items)[2]!.input).toBe('string'); // freeform apply_patch input
    const failed = results(r.items).filter((x) => x.isError);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.callId).toBe('call_Tb5nE2wQ7hLk9sGd');
    for (const res of results(r.items))
      expect(res.name).toBe(calls(r.items).find((c) => c.callId === res.callId)!.name);
    expect(r.warnings).toEqual([
      expect.stringMatching(/tool call cx-\d+ \(shell\): no result for callId call_Qw1eR2tY3uI4oP5a/),
    ]);
    expect(r.items.at(-1)!.kind).toBe('tool_call');
  });

  it('files the pasted screenshot as a person image with its size, in the turn of its prompt', () => {
    const image = r.items.find((i) => i.kind === 'image')!;
    expect(image).toMatchObject({ author: 'person', mediaType: 'image/png', width: 96, height: 64, turn: 2 });
  });

  it('turns the compacted line into a summary and numbers three turns', () => {
    expect(r.items.find((i) => i.kind === 'summary')).toMatchObject({
      author: 'machinery',
      text: expect.stringContaining('Summary so far'),
    });
    expect(r.items.map((i) => i.turn).filter((t, i, a) => a.indexOf(t) === i)).toEqual([1, 2, 3]);
  });

  it('reports lines that are not rollout lines by number', () => {
    const lines = text.split('\n');
    lines[2] = '{"timestmp":"x","kind":"message"}';
    const t = importTranscript(lines.join('\n'), { format: 'codex' });
    expect(t.warnings.some((w) => /^line 3: expected \{ timestamp, type, payload \}/.test(w))).toBe(true);
  });
});

describe('codex compacted with replacement_history only', () => {
  it('takes the summary text from the replacement history and says so', () => {
    const line = (type: string, payload: object): string =>
      JSON.stringify({ timestamp: '2026-11-21T16:00:00.000Z', type, payload });
    const text = [
      line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] }),
      line('compacted', {
        message: '',
        replacement_history: [
          {
            type: 'message',
            role: 'user',
            content: [{ type: 'input_text', text: 'earlier: fixed the parser' }],
          },
        ],
      }),
    ].join('\n');
    const r = importTranscript(text);
    expect(r.items[1]).toMatchObject({ kind: 'summary', text: 'earlier: fixed the parser' });
    expect(r.warnings).toEqual([
      'line 2: compacted line has no message; summary taken from its replacement_history',
    ]);
  });
});

describe('codex IDE context', () => {
  const line = (text: string, at: number): string =>
    JSON.stringify({
      timestamp: `2026-11-21T16:02:${String(10 + at).padStart(2, '0')}.000Z`,
      type: 'response_item',
      payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
    });
  const ide =
    '# Context from my IDE setup:\n\n## Active file: src/lib.rs\n\n## Open tabs:\n- lib.rs: src/lib.rs\n- main.rs: src/main.rs\n\n## My request for Codex:\nMake count() handle empty input.\n';

  it('files the editor state as surface context and only the request as the person', () => {
    const r = importTranscript(
      [line(ide, 0), line('# Context from my IDE setup:\n\n## Active file: a.rs', 1)].join('\n'),
      {
        format: 'codex',
      },
    );
    expect(r.items.map((i) => `${i.author}:${i.kind}`)).toEqual([
      'surface:context',
      'person:message',
      'surface:context',
    ]);
    expect(r.items[0]).toMatchObject({
      source: 'ide-context',
      text: expect.stringContaining('## Open tabs:'),
    });
    expect(r.items[1]).toMatchObject({ text: 'Make count() handle empty input.' });
    expect(JSON.stringify(r.items[1])).not.toContain('Active file');
  });
});
