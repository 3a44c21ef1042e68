import { describe, expect, it } from 'vitest';
import { importTranscript, classifyClaudeCodeText } from '../../src/transcript/import/index.js';
import { KIND_AUTHORS, type Item } from '../../src/transcript/items.js';
import { calls, expectChain, expectTree, fixture, results } from './fixtures.js';

const text = fixture('claude-code.jsonl');
const lines = text
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('claude-code importer', () => {
  const r = importTranscript(text);

  it('detects the format and builds a tree whose path root → tip is a chain', () => {
    expect(r.format).toBe('claude-code');
    expectChain(r.items);
    expectTree(r.tree);
    expect(r.tip).toBe(r.items.at(-1)!.id);
    for (const item of r.tree) expect(KIND_AUTHORS[item.kind]).toContain(item.author);
  });

  it('keeps the abandoned branch as a branch and ends the path at the newest main-chain entry', () => {
    const texts = r.items.map((i) => ('text' in i ? i.text : ''));
    expect(texts.some((t) => t?.includes('Also update the report snapshot test'))).toBe(false);
    expect(texts.some((t) => t?.startsWith("Actually, don't touch the snapshots"))).toBe(true);
    expect(r.items.at(-1)).toMatchObject({ kind: 'message', author: 'model', text: 'Committed as 4be1c2a.' });
    const abandoned = r.tree.find(
      (i) => i.kind === 'message' && i.text === 'Also update the report snapshot test',
    )!;
    const edited = r.items.find((i) => i.kind === 'message' && i.text.startsWith("Actually, don't touch"))!;
    expect(abandoned.parent).toBe(edited.parent); // the edited prompt re-run: siblings
    expect(r.tree.filter((i) => !r.items.includes(i)).map((i) => i.kind)).toEqual([
      'message',
      'message',
      'context',
    ]);
    expect(r.warnings.some((w) => w.includes('not on the active path'))).toBe(false);
  });

  it('imports the sidechain as an agent history linked from the Task call', () => {
    // The subagent's own Glob call is in its history, not on the main path; its Task result is.
    expect(calls(r.tree).map((c) => c.name)).not.toContain('Glob');
    expect(r.agents).toHaveLength(1);
    const agent = r.agents[0]!;
    expect(agent.name).toMatch(/^sidechain-[0-9a-f]{8}$/);
    expect(calls(agent.result.items).map((c) => c.name)).toEqual(['Glob']);
    const task = calls(r.items).find((c) => c.name === 'Task')!;
    expect(agent.calledBy).toBe(task.callId);
    expect(task.agent).toBe(agent.name);
  });

  it('crosses the compact boundary through logicalParentUuid and files the compact summary as a summary', () => {
    const summary = r.items.find((i) => i.kind === 'summary');
    expect(summary).toMatchObject({ author: 'machinery' });
    expect(r.items.indexOf(summary!)).toBeGreaterThan(10);
    expect(r.items[0]!.kind).toBe('context'); // history before the boundary is still there
  });

  it('files injected content as surface context and typed text as person messages', () => {
    const sources = r.items
      .filter((i) => i.kind === 'context')
      .map((i) => (i.kind === 'context' ? i.source : ''));
    expect(sources).toEqual(['meta', 'command', 'command-output', 'system-reminder']);
    const person = r.items.filter((i) => i.author === 'person' && i.kind === 'message');
    expect(person).toHaveLength(3);
  });

  it('numbers turns from person messages, taking attached context and images with them', () => {
    const turnOf = (pred: (i: Item) => boolean): number => r.items.find(pred)!.turn;
    expect(turnOf((i) => i.kind === 'image')).toBe(1);
    expect(turnOf((i) => i.kind === 'tool_call' && i.name === 'Edit')).toBe(1);
    expect(turnOf((i) => i.kind === 'tool_call' && i.name.startsWith('mcp__playwright'))).toBe(3);
    expect(
      turnOf(
        (i) => i.kind === 'tool_call' && i.name === 'Bash' && JSON.stringify(i.input).includes('git commit'),
      ),
    ).toBe(4);
    // Turns count over the whole tree in log order: the abandoned prompt had turn 2.
    expect(r.items.filter((i) => i.kind === 'message' && i.author === 'person').map((i) => i.turn)).toEqual([
      1, 3, 4,
    ]);
    expect(Math.max(...r.tree.map((i) => i.turn))).toBe(4);
  });

  it('keeps thinking signatures and redacted thinking verbatim', () => {
    const reasoning = r.items.filter((i) => i.kind === 'reasoning');
    expect(reasoning).toHaveLength(2);
    const source = lines.flatMap(
      (l) => ((l.message as { content?: unknown })?.content as Record<string, unknown>[] | undefined) ?? [],
    );
    const thinking = source.find((b) => typeof b === 'object' && b.type === 'thinking')!;
    const redacted = source.find((b) => typeof b === 'object' && b.type === 'redacted_thinking')!;
    expect(reasoning[0]).toMatchObject({
      provider: 'anthropic',
      text: thinking.thinking,
      signature: thinking.signature,
    });
    expect(reasoning[1]).toMatchObject({ text: '', encrypted: redacted.data });
  });

  it('pairs every call with its result, keeps errors, names and touched files', () => {
    expect(r.warnings.filter((w) => w.includes('orphan'))).toEqual([]);
    const byId = new Map(results(r.items).map((x) => [x.callId, x]));
    for (const call of calls(r.items)) {
      const result = byId.get(call.callId)!;
      expect(result.name).toBe(call.name);
      expect(r.items.indexOf(result)).toBeGreaterThan(r.items.indexOf(call));
    }
    const test = results(r.items).find((x) => x.isError);
    expect(test?.name).toBe('Bash');
    expect(results(r.items).find((x) => x.name === 'Read')?.files).toEqual([
      '/home/dana/src/tally/src/report.ts',
    ]);
    expect(results(r.items).find((x) => x.name === 'Edit')?.files).toEqual([
      '/home/dana/src/tally/src/csv.ts',
    ]);
    // parallel calls: two calls in a row, then their two results
    const kinds = r.items.map((i) => i.kind);
    expect(kinds.join(',')).toContain('tool_call,tool_call,tool_result,tool_result');
  });

  it('keeps pasted images and images inside tool results with their pixel size', () => {
    const image = r.items.find((i) => i.kind === 'image');
    expect(image).toMatchObject({ author: 'person', mediaType: 'image/png', width: 120, height: 80 });
    const shot = results(r.items).find((x) => x.content.some((p) => p.type === 'image'))!;
    expect(shot.content[1]).toMatchObject({ type: 'image', width: 160, height: 100 });
  });

  it('uses the source timestamps', () => {
    const first = lines.find((l) => l.isMeta === true)!;
    expect(r.items[0]!.time).toBe(first.timestamp);
  });

  it('reports a truncated last line by number and loads the rest', () => {
    const cut = text.slice(0, text.length - 40);
    const n = cut.trim().split('\n').length;
    const t = importTranscript(cut);
    expect(t.warnings[0]).toMatch(new RegExp(`^line ${n} is not valid JSON`));
    expect(t.items.length).toBeGreaterThan(20);
  });

  it('warns when the chain points at a uuid missing from the file', () => {
    const kept = lines.filter((l) => l.type !== 'summary');
    const dropIndex = kept.findIndex((l) => l.isMeta === true);
    const broken = kept.filter((_, i) => i !== dropIndex);
    const t = importTranscript(broken.map((l) => JSON.stringify(l)).join('\n'), { format: 'claude-code' });
    expect(
      t.warnings.some((w) =>
        /^1 entries name a parent that is not in the file \(lines \d+\); each continues from the entry before it/.test(
          w,
        ),
      ),
    ).toBe(true);
    expectChain(t.items);
    expect(t.tree.filter((i) => i.parent === null)).toHaveLength(1); // reattached, not a second root
  });

  it('splits system reminders out of typed text', () => {
    const items = classifyClaudeCodeText(
      'fix it please\n<system-reminder>todo list is empty</system-reminder>\nthanks',
    );
    expect(items.map((i) => `${i.author}:${i.kind}`)).toEqual([
      'person:message',
      'surface:context',
      'person:message',
    ]);
  });

  it('files task notifications (a background task reporting back) as surface context', () => {
    const note =
      '<task-notification>\n<task-id>b7</task-id>\n<status>completed</status>\n<summary>Background command "npm test" completed (exit code 0)</summary>\n</task-notification>';
    const items = classifyClaudeCodeText(`${note}\nok, what did it say?`);
    expect(items.map((i) => `${i.author}:${i.kind}`)).toEqual(['surface:context', 'person:message']);
    expect(items[0]).toMatchObject({ source: 'task-notification', text: note });
    expect(items[1]).toMatchObject({ text: 'ok, what did it say?' });
    expect(classifyClaudeCodeText(note).map((i) => i.author)).toEqual(['surface']);
  });

  it('imports a subagent file (sidechain only) as its own path', () => {
    const side = lines.filter((l) => l.isSidechain === true);
    const t = importTranscript(side.map((l) => JSON.stringify(l)).join('\n'));
    expect(t.items.map((i) => i.kind)).toEqual(['message', 'tool_call', 'tool_result', 'message']);
    expect(t.warnings).toEqual([]);
  });
});

describe('claude-code chain through bookkeeping entries', () => {
  it('follows parentUuid through a progress entry that carries a uuid', () => {
    const l = (o: object): string =>
      JSON.stringify({ isSidechain: false, sessionId: 's', timestamp: '2026-11-20T10:00:00.000Z', ...o });
    const text = [
      l({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'list files' } }),
      l({
        type: 'assistant',
        uuid: 'a1',
        parentUuid: 'u1',
        message: {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }],
        },
      }),
      l({
        type: 'progress',
        uuid: 'p1',
        parentUuid: 'a1',
        data: { type: 'hook_progress', hookEvent: 'PreToolUse' },
      }),
      l({
        type: 'user',
        uuid: 'u2',
        parentUuid: 'p1',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a.ts' }] },
      }),
    ].join('\n');
    const r = importTranscript(text);
    expect(r.items.map((i) => i.kind)).toEqual(['message', 'tool_call', 'tool_result']);
    expect(r.warnings).toEqual(['bookkeeping entries not imported (never sent to the model): 1 progress']);
  });
});

describe('claude-code repeated uuids', () => {
  it('reports repeated entries once, keeps the later one, and does not call the earlier abandoned', () => {
    const text = fixture('claude-code.jsonl');
    const all = text.trim().split('\n');
    const firstUser = all.findIndex((l) => l.includes('"isMeta":true'));
    const doubled = [
      ...all.slice(0, firstUser + 3),
      ...all.slice(firstUser, firstUser + 3),
      ...all.slice(firstUser + 3),
    ];
    const r = importTranscript(doubled.join('\n'));
    const plain = importTranscript(text);
    expect(r.items.length).toBe(plain.items.length);
    expect(r.tree.length).toBe(plain.tree.length);
    expect(r.warnings.filter((w) => w.includes('repeat'))).toEqual([
      `3 entries repeat an earlier uuid (lines ${firstUser + 4}, ${firstUser + 5}, ${firstUser + 6}); the later entry wins`,
    ]);
  });
});
