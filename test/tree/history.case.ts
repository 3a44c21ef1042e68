/**
 * The conformance suite every history backend runs (Hono/LangGraph style: one parameterised case
 * file, a few lines per backend). `reopen` must give a workspace that sees what was committed before,
 * as after a process restart. Every call that may touch the store is awaited, so the same cases run on
 * synchronous backends (memory, the folder workspace) and asynchronous ones (PostgreSQL).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Item, NewItem } from '../../src/transcript/items.js';
import { ItemValidationError } from '../../src/transcript/validate.js';
import { HistoryLockedError, type Awaitable, type HistoryStore } from '../../src/tree/backend.js';
import { PendingTurnError, type AgentHistory } from '../../src/tree/history.js';

export interface BackendFixture {
  /** A fresh, empty workspace. */
  create(): Awaitable<HistoryStore>;
  /** The same workspace as a new process would see it (close the old one first). */
  reopen(): Awaitable<HistoryStore>;
  cleanup(): Awaitable<void>;
}

const say = (text: string): NewItem => ({ kind: 'message', author: 'person', text });
const answer = (text: string): NewItem => ({ kind: 'message', author: 'model', text });
const call = (callId: string, name = 'bash', input: unknown = { cmd: 'ls' }): NewItem => ({
  kind: 'tool_call',
  author: 'model',
  callId,
  name,
  input,
});
const result = (callId: string, text = 'ok', files?: string[]): NewItem => ({
  kind: 'tool_result',
  author: 'machinery',
  callId,
  name: 'bash',
  content: [{ type: 'text', text }],
  ...(files ? { files } : {}),
});

/** Appends and commits one turn. */
async function turn(h: AgentHistory<boolean>, ...items: NewItem[]): Promise<Item[]> {
  for (const i of items) h.append(i);
  return await h.commit();
}
const texts = (items: readonly Item[]): string[] =>
  items.map((i) => ('text' in i && typeof i.text === 'string' ? i.text : i.kind));

export function historyConformance(name: string, makeFixture: () => BackendFixture): void {
  describe(`history conformance: ${name}`, () => {
    let fx: BackendFixture;
    let ws: HistoryStore;
    const open: AgentHistory<boolean>[] = [];
    const history = async (c: string, a?: string): Promise<AgentHistory<boolean>> => {
      const h = await ws.history(c, a);
      open.push(h);
      return h;
    };
    const reopen = async (): Promise<void> => {
      for (const h of open.splice(0)) await h.close();
      await ws.close();
      ws = await fx.reopen();
    };
    beforeEach(async () => {
      fx = makeFixture();
      ws = await fx.create();
    });
    afterEach(async () => {
      for (const h of open.splice(0)) await h.close();
      await ws.close();
      await fx.cleanup();
    });

    it('commits turns and keeps them across a reopen, with parents and turn numbers', async () => {
      const h = await history('c1');
      const [q] = await turn(h, say('hello'));
      const [a, b] = await turn(h, answer('hi'), answer('there'));
      expect(q!.parent).toBeNull();
      expect(a!.parent).toBe(q!.id);
      expect(b!.parent).toBe(a!.id);
      expect([q!.turn, a!.turn, b!.turn]).toEqual([1, 2, 2]);
      expect(h.tip).toBe(b!.id);
      await reopen();
      const again = await history('c1');
      expect(texts(again.path())).toEqual(['hello', 'hi', 'there']);
      expect(again.turn).toBe(2);
      expect(again.tip).toBe(b!.id);
      expect(again.problems).toEqual([]);
    });

    it('gives the same bytes for a path before and after a reopen (prompt caches depend on it)', async () => {
      const h = await history('c1');
      await turn(h, say('list it'), call('t1', 'bash', { z: 1, a: { y: [2, { c: 3, b: 4 }], x: 'k' } }));
      await turn(h, result('t1'));
      const before = JSON.stringify(h.path());
      await reopen();
      expect(JSON.stringify((await history('c1')).path())).toBe(before);
    });

    it('shows the pending turn in path() and loses it when never committed', async () => {
      const h = await history('c1');
      await turn(h, say('one'));
      h.append(answer('pending'));
      expect(texts(h.path())).toEqual(['one', 'pending']);
      await reopen();
      expect(texts((await history('c1')).path())).toEqual(['one']);
    });

    it('rejects a malformed item naming the field, and writes nothing', async () => {
      const h = await history('c1');
      await expect(async () =>
        h.append({ kind: 'message', author: 'machinery', text: 'x' } as unknown as NewItem),
      ).rejects.toThrow(ItemValidationError);
      await expect(async () =>
        h.append({
          kind: 'tool_result',
          author: 'machinery',
          callId: 'c',
          name: 'n',
          content: [{ type: 'image', mediaType: 'image/bmp', data: '' }],
        } as unknown as NewItem),
      ).rejects.toThrow(/field 'content\[0\]\.mediaType' expected one of image\/png/);
      expect(h.hasPending).toBe(false);
      expect(await h.commit()).toEqual([]);
    });

    it('branch moves the tip without writing items, survives a reopen, and switches back', async () => {
      const h = await history('c1');
      const [q] = await turn(h, say('q'));
      const [a1] = await turn(h, answer('a1'));
      const [f1] = await turn(h, say('follow-up'));
      const count = h.items().length;
      await h.branch(q!.id);
      expect(h.items().length).toBe(count);
      expect(texts(h.path())).toEqual(['q']);
      const [a2] = await turn(h, answer('a2'));
      expect(a2!.parent).toBe(q!.id);
      await reopen();
      const r = await history('c1');
      expect(r.tip).toBe(a2!.id);
      expect(texts(r.path())).toEqual(['q', 'a2']);
      await r.branch(f1!.id); // switch back
      expect(texts(r.path())).toEqual(['q', 'a1', 'follow-up']);
      await reopen();
      expect((await history('c1')).tip).toBe(f1!.id);
      expect(a1!.parent).toBe(q!.id);
    });

    it('refuses tree moves in the middle of a turn', async () => {
      const h = await history('c1');
      const [q] = await turn(h, say('q'));
      h.append(answer('half'));
      await expect(async () => await h.branch(q!.id)).rejects.toThrow(PendingTurnError);
      await expect(async () => await h.checkpoint('x')).rejects.toThrow(PendingTurnError);
      await expect(async () => await h.fork()).rejects.toThrow(PendingTurnError);
      await expect(async () => await h.branch('nope')).rejects.toThrow(PendingTurnError);
      h.discard();
      await expect(async () => await h.branch('nope')).rejects.toThrow(/no item nope/);
    });

    it('edit-and-rerun adds a sibling under the same parent and keeps the old answer', async () => {
      const h = await history('c1');
      const [sys] = await turn(h, say('context'));
      const [prompt] = await turn(h, say('write a poem'));
      const [poem] = await turn(h, answer('roses…'));
      const edited = h.edit(prompt!.id, say('write a haiku'));
      h.append(answer('old pond…'));
      await h.commit();
      expect(edited.parent).toBe(sys!.id);
      expect(h.children(sys!.id).map((i) => i.id)).toEqual([prompt!.id, edited.id]);
      expect(texts(h.path())).toEqual(['context', 'write a haiku', 'old pond…']);
      await h.branch(poem!.id);
      expect(texts(h.path())).toEqual(['context', 'write a poem', 'roses…']);
    });

    it('keeps the system prompt it was created with, across a reopen and into a fork', async () => {
      const h = await ws.history('c-sys', 'main', { system: 'You are terse.' });
      open.push(h);
      await turn(h, say('q'));
      expect(h.system).toBe('You are terse.');
      const f = await h.fork({ conversation: 'c-sys-fork' });
      open.push(f);
      expect(f.system).toBe('You are terse.');
      await reopen();
      expect((await history('c-sys')).system).toBe('You are terse.');
      // Fixed when created: another prompt is refused by name, and the history stays as it was.
      await expect(
        (async () => ws.history('c-sys-fork', 'main', { system: 'You are chatty.' }))(),
      ).rejects.toThrow(
        /c-sys-fork agent main exists and was created with another system prompt \(14 chars\)/,
      );
      expect((await history('c-plain')).system).toBeUndefined();
    });

    it('fork copies the path with fresh ids and a lineage link; later items stay apart', async () => {
      const h = await history('c1');
      await turn(h, say('q'));
      await turn(h, call('t1'), result('t1'));
      await turn(h, answer('done'));
      await h.checkpoint('before-more');
      const f = await h.fork({ conversation: 'c1-fork' });
      open.push(f);
      expect(f.conversation).toBe('c1-fork');
      expect(texts(f.path())).toEqual(texts(h.path()));
      const srcIds = new Set(h.items().map((i) => i.id));
      for (const item of f.path()) expect(srcIds.has(item.id)).toBe(false);
      // Tool pairing survives the copy (callIds are provider ids, not item ids).
      expect(
        f
          .path()
          .filter((i) => i.kind === 'tool_result')
          .map((i) => (i as { callId: string }).callId),
      ).toEqual(['t1']);
      expect(f.checkpoints().map((c) => c.label)).toEqual(['before-more']);
      expect(f.checkpoints()[0]!.at).toBe(f.tip);
      await turn(f, say('only in fork'));
      await turn(h, say('only in source'));
      expect(texts(f.path())).not.toContain('only in source');
      expect(texts(h.path())).not.toContain('only in fork');
      expect((await ws.conversation('c1-fork'))?.forkedFrom).toEqual({
        conversation: 'c1',
        agent: 'main',
        tip: f.header?.forkedFrom?.tip,
      });
      expect(f.header?.forkedFrom?.conversation).toBe('c1');
      await expect(async () => await h.fork({ conversation: 'c1-fork' })).rejects.toThrow(/already/);
      await reopen();
      expect(texts((await history('c1-fork')).path())).toEqual([
        'q',
        'tool_call',
        'tool_result',
        'done',
        'only in fork',
      ]);
      expect(texts((await history('c1')).path())).toEqual([
        'q',
        'tool_call',
        'tool_result',
        'done',
        'only in source',
      ]);
      expect((await ws.conversation('c1-fork'))?.forkedFrom?.conversation).toBe('c1');
    });

    it('fork points compaction items at the copies, parameters included', async () => {
      const h = await history('c1');
      const [q, c, r] = await turn(h, say('q'), call('t1'), result('t1'));
      await turn(h, {
        kind: 'compaction',
        author: 'machinery',
        rung: 'elide',
        range: { from: r!.id, to: r!.id },
        params: { ids: [r!.id], runs: [{ from: q!.id, to: c!.id }], note: 'kept as is' },
      });
      const f = await h.fork({ conversation: 'c1-fork' });
      open.push(f);
      const copies = f.path();
      const record = copies.find((i) => i.kind === 'compaction');
      expect(record?.kind === 'compaction' && record.params).toEqual({
        ids: [copies[2]!.id],
        runs: [{ from: copies[0]!.id, to: copies[1]!.id }],
        note: 'kept as is',
      });
    });

    it('rewind moves the tip to the checkpoint and appends the caller digest; a reload keeps both', async () => {
      const h = await history('c1');
      const [q] = await turn(h, say('q'));
      const cp = await h.checkpoint('start');
      expect(cp.at).toBe(q!.id);
      await turn(h, call('x'), result('x'), answer('explored'));
      const r = await h.rewind('start', { digest: 'tried x; it failed' });
      expect(r.abandoned.map((i) => i.kind)).toEqual(['tool_call', 'tool_result', 'message']);
      expect(r.digest?.kind).toBe('digest');
      expect(r.digest?.parent).toBe(q!.id);
      expect(texts(h.path())).toEqual(['q', 'tried x; it failed']);
      await reopen();
      const again = await history('c1');
      expect(texts(again.path())).toEqual(['q', 'tried x; it failed']);
      expect(again.checkpoints().map((c) => c.label)).toEqual(['start']);
      await expect(async () => await again.rewind('nope')).rejects.toThrow(
        /no checkpoint 'nope'.*known: start/,
      );
    });

    it('writes an extractive digest: tool calls, files touched, last model text', async () => {
      const h = await history('c1');
      await turn(h, say('q'));
      await h.checkpoint('cp');
      await turn(
        h,
        call('a', 'edit_file'),
        result('a', 'edited', ['src/x.ts']),
        call('b', 'bash'),
        result('b'),
        answer('I changed x.ts and ran tests'),
      );
      const r = await h.rewind('cp');
      const text = (r.digest as { text: string }).text;
      expect(text).toContain('Abandoned 5 items');
      expect(text).toContain('Tool calls made: edit_file, bash');
      expect(text).toContain('Files touched: src/x.ts');
      expect(text).toContain('Last model text: I changed x.ts and ran tests');
    });

    it('restores files (code), the conversation, or both, and reports what it cannot undo', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'gf-restore-'));
      try {
        const a = join(dir, 'a.txt');
        const made = join(dir, 'made.txt');
        writeFileSync(a, 'original');
        const h = await history('c1');
        await turn(h, say('q'));
        await h.checkpoint('cp', { files: [a, made] });
        writeFileSync(a, 'changed');
        writeFileSync(made, 'new file');
        await turn(
          h,
          call('e', 'edit'),
          result('e', 'ok', [a, made]),
          call('m', 'send_email'),
          result('m', 'sent'),
          call('w', 'write'),
          result('w', 'ok', [join(dir, 'other.txt')]),
        );
        const codeOnly = await h.restore('cp', { code: true });
        expect(readFileSync(a, 'utf8')).toBe('original');
        expect(existsSync(made)).toBe(false);
        expect(codeOnly.files?.restored).toEqual([a]);
        expect(codeOnly.files?.deleted).toEqual([made]);
        expect(codeOnly.files?.notCovered).toEqual([join(dir, 'other.txt')]);
        expect(codeOnly.irreversible.map((c) => c.name)).toEqual(['send_email']);
        expect(codeOnly.conversation).toBeUndefined();
        expect(h.path()).toHaveLength(7); // conversation untouched
        writeFileSync(a, 'changed again');
        await reopen(); // the snapshot outlives the process
        const again = await history('c1');
        const both = await again.restore('cp', { code: true, conversation: true });
        expect(readFileSync(a, 'utf8')).toBe('original');
        expect(both.conversation?.digest?.kind).toBe('digest');
        expect(texts(again.path())[0]).toBe('q');
        expect(again.path()).toHaveLength(2);
        await expect(async () => await again.restore('cp', {})).rejects.toThrow(/code, conversation or both/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('resume cuts the newest part without splitting tool pairs and drops checkpoints it cut', async () => {
      const h = await history('c1');
      await turn(h, say('q1'));
      await h.checkpoint('early');
      await turn(h, call('p1'), call('p2'), result('p1'), result('p2')); // parallel calls
      await h.checkpoint('mid');
      await turn(h, answer('a'), say('q2'), call('p3'), result('p3'));
      await h.checkpoint('late');
      const path = h.path();
      expect(path).toHaveLength(9);
      for (let max = 0; max <= 9; max++) {
        const r = h.resume({ maxItems: max });
        expect(r.items.length).toBeLessThanOrEqual(max);
        expect(r.omitted + r.items.length).toBe(9);
        const calls = new Set(
          r.items.filter((i) => i.kind === 'tool_call').map((i) => (i as { callId: string }).callId),
        );
        const results = new Set(
          r.items.filter((i) => i.kind === 'tool_result').map((i) => (i as { callId: string }).callId),
        );
        expect([...results].every((c) => calls.has(c))).toBe(true);
        expect([...calls].every((c) => results.has(c))).toBe(true);
        expect(r.checkpoints.length + r.dropped.length).toBe(3);
        for (const cp of r.checkpoints) expect(r.items.some((i) => i.id === cp.at)).toBe(true);
      }
      // Six items would start at index 3, inside the parallel pairs (calls at 1-2, results at 3-4):
      // the cut moves forward to index 5, and 'mid' (after the last result) does not survive.
      const six = h.resume({ maxItems: 6 });
      expect(texts(six.items)).toEqual(['a', 'q2', 'tool_call', 'tool_result']);
      expect(six.checkpoints.map((c) => c.label)).toEqual(['late']);
      expect(six.dropped.map((d) => d.checkpoint.label)).toEqual(['early', 'mid']);
      expect(six.dropped[0]!.reason).toMatch(/was cut/);
      const byTokens = h.resume({ maxTokens: 5, estimate: () => 1 });
      expect(texts(byTokens.items)).toEqual(['a', 'q2', 'tool_call', 'tool_result']);
      await expect(async () => h.resume({})).rejects.toThrow(/maxItems or maxTokens/);
    });

    it('keeps two agents of one conversation in two histories', async () => {
      const main = await history('c1');
      const helper = await history('c1', 'researcher');
      await turn(main, say('for main'));
      await turn(helper, say('for researcher'));
      expect(texts(main.path())).toEqual(['for main']);
      expect(texts(helper.path())).toEqual(['for researcher']);
      expect((await ws.conversation('c1'))?.agents).toEqual(['main', 'researcher']);
      await reopen();
      expect(texts((await history('c1', 'researcher')).path())).toEqual(['for researcher']);
      expect(await ws.conversations()).toEqual(['c1']);
    });

    it('lets only one writer hold a conversation-and-agent', async () => {
      const h = await history('c1');
      await expect(async () => ws.history('c1')).rejects.toThrow(HistoryLockedError);
      const other = await history('c1', 'other'); // another agent is another history
      await turn(other, say('fine'));
      await h.close();
      const again = await history('c1');
      await turn(again, say('after release'));
      await expect(async () => await turn(h, say('closed'))).rejects.toThrow(/closed/);
    });
  });
}
