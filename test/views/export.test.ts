/**
 * Issue 14: exporting a branch that is not the tip, in every format, and reading it back. glyphfold
 * JSONL gives the same items (new ids); Claude Code JSONL and the provider arrays give the same content.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Workspace } from '../../src/store/index.js';
import { importTranscript, type ImportFormat } from '../../src/transcript/import/index.js';
import type { Item } from '../../src/transcript/items.js';
import { EXPORT_FORMATS, exportPath, type ExportFormat } from '../../src/views/export.js';
import { runCli } from '../helpers/cli.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'gf-export-'));
  dirs.push(d);
  return d;
}

// A 1×1 PNG, so image items carry a real image.
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** Two branches after a shared first turn; the tip ends branch B, branch A ends at `leafA`. */
function twoBranches(dir: string): { leafA: string; tipB: string } {
  const ws = Workspace.open(dir);
  const h = ws.history('c1');
  h.append({ kind: 'context', author: 'surface', text: 'cwd: /repo', source: 'meta' });
  h.append({ kind: 'message', author: 'person', text: 'Fix the failing test in parse.ts' });
  h.append({
    kind: 'reasoning',
    author: 'model',
    text: 'Look first.',
    provider: 'anthropic',
    signature: 'sig-1',
  });
  h.append({
    kind: 'tool_call',
    author: 'model',
    callId: 'toolu_1',
    name: 'Read',
    input: { path: 'parse.ts' },
  });
  h.append({
    kind: 'tool_result',
    author: 'machinery',
    callId: 'toolu_1',
    name: 'Read',
    content: [{ type: 'text', text: 'export function parse() {}' }],
    files: ['parse.ts'],
  });
  h.append({ kind: 'message', author: 'model', text: 'The parser returns nothing.' });
  const fork = h.commit().at(-1)!.id;
  h.checkpoint('read');
  h.append({ kind: 'message', author: 'person', text: 'Branch A: return an empty array' });
  h.append({ kind: 'image', author: 'person', mediaType: 'image/png', data: PNG, width: 1, height: 1 });
  h.append({
    kind: 'tool_call',
    author: 'model',
    callId: 'toolu_2',
    name: 'Edit',
    input: { path: 'parse.ts' },
  });
  h.append({
    kind: 'tool_result',
    author: 'machinery',
    callId: 'toolu_2',
    name: 'Edit',
    content: [{ type: 'text', text: 'error: file changed' }],
    isError: true,
  });
  h.append({ kind: 'message', author: 'model', text: 'A: the edit failed, retrying later.' });
  const leafA = h.commit().at(-1)!.id;
  h.branch(fork);
  h.append({ kind: 'message', author: 'person', text: 'Branch B: throw instead' });
  h.append({ kind: 'message', author: 'model', text: 'B: done.' });
  const tipB = h.commit().at(-1)!.id;
  h.close();
  ws.close();
  return { leafA, tipB };
}

/** What a format carries of an item: its content, not its place in a log. */
function content(i: Item): Record<string, unknown> {
  const { id: _id, parent: _parent, turn: _turn, time: _time, ...rest } = i;
  return rest;
}

const IMPORT_AS: Partial<Record<ExportFormat, ImportFormat>> = {
  glyphfold: 'glyphfold',
  'claude-code': 'claude-code',
  anthropic: 'anthropic',
  'openai-chat': 'openai-chat',
};

describe('exportPath on a branch that is not the tip', () => {
  it('glyphfold JSONL re-imports to the same items, turns and times included', () => {
    const dir = tmp();
    const { leafA, tipB } = twoBranches(dir);
    const ws = Workspace.open(dir, { readOnly: true });
    const h = ws.history('c1', 'main', { readOnly: true });
    expect(h.tip).toBe(tipB);
    const branchA = h.pathTo(leafA);
    expect(branchA.map((i) => i.id)).not.toContain(tipB);
    expect(h.path().map((i) => i.id)).not.toContain(leafA);
    const out = exportPath(branchA, 'glyphfold');
    const back = importTranscript(out.text, { format: 'glyphfold' });
    expect(back.items).toHaveLength(branchA.length);
    back.items.forEach((item, k) => {
      const { id: _a, parent: _b, ...mine } = item;
      const { id: _c, parent: _d, ...theirs } = branchA[k]!;
      expect(mine).toEqual(theirs);
    });
    // A linear path: each re-imported item follows the one before it.
    expect(back.items.slice(1).every((item, k) => item.parent === back.items[k]!.id)).toBe(true);
    ws.close();
  });

  it('Claude Code JSONL re-imports to the same content, and says what it could not keep', () => {
    const dir = tmp();
    const { leafA } = twoBranches(dir);
    const ws = Workspace.open(dir, { readOnly: true });
    const branchA = ws.history('c1', 'main', { readOnly: true }).pathTo(leafA);
    const out = exportPath(branchA, 'claude-code', { sessionId: 'c1' });
    const back = importTranscript(out.text);
    expect(back.format).toBe('claude-code');
    expect(back.warnings).toEqual([]);
    expect(back.items.map(content)).toEqual(branchA.map(content));
    expect(back.items.map((i) => i.time)).toEqual(branchA.map((i) => i.time));
    expect(out.notes).toEqual([]);
    ws.close();
  });

  it('the provider arrays re-import to the same messages, calls and results', () => {
    const dir = tmp();
    const { leafA } = twoBranches(dir);
    const ws = Workspace.open(dir, { readOnly: true });
    const branchA = ws.history('c1', 'main', { readOnly: true }).pathTo(leafA);
    const conversational = (items: readonly Item[]) =>
      items
        .filter((i) => i.kind === 'message' || i.kind === 'tool_call' || i.kind === 'tool_result')
        .map((i) => {
          const c = content(i);
          delete c.files; // no wire format says which files a tool touched
          if (c.kind === 'tool_result' && c.isError === undefined) delete c.isError;
          return c;
        });
    for (const format of ['anthropic', 'openai-chat'] as const) {
      const out = exportPath(branchA, format);
      expect(Array.isArray(JSON.parse(out.text)), format).toBe(true);
      const back = importTranscript(out.text, { format: IMPORT_AS[format]! });
      // Context travels as user text on the wire, wrapped (OpenAI Chat joins it to the prompt after it).
      const CONTEXT = '<context source="meta">\ncwd: /repo\n</context>';
      expect(out.text).toContain(JSON.stringify(CONTEXT).slice(1, -1));
      const unwrapped = back.items.flatMap((i): Item[] => {
        if (i.kind !== 'message' || !i.text.startsWith(CONTEXT)) return [i];
        const rest = i.text.slice(CONTEXT.length).trim();
        return rest === '' ? [] : [{ ...i, text: rest }];
      });
      const got = conversational(unwrapped).map((c) =>
        // OpenAI Chat has no error flag on a tool message
        format === 'openai-chat' && c.kind === 'tool_result' ? { ...c, isError: undefined } : c,
      );
      // ...it says so in the text instead.
      const want = conversational(branchA).map((c) =>
        format === 'openai-chat' && c.kind === 'tool_result'
          ? {
              ...c,
              isError: undefined,
              content: (c.content as { text: string }[]).map((p) => ({
                ...p,
                text: c.isError ? `[tool error] ${p.text}` : p.text,
              })),
            }
          : c,
      );
      expect(JSON.parse(JSON.stringify(got)), format).toEqual(JSON.parse(JSON.stringify(want)));
      expect(out.text).toContain('Branch A');
      expect(out.text).not.toContain('Branch B');
    }
    const responses = JSON.parse(exportPath(branchA, 'openai-responses').text) as { type?: string }[];
    expect(responses.filter((e) => e.type === 'function_call')).toHaveLength(2);
    ws.close();
  });

  it('names what Claude Code cannot carry (digests, compaction records, a context source)', () => {
    const item = (k: number, rest: Record<string, unknown>) =>
      ({
        id: `i${k}`,
        parent: k > 1 ? `i${k - 1}` : null,
        turn: 1,
        time: '2026-01-01T00:00:00.000Z',
        ...rest,
      }) as Item;
    const path = [
      item(1, { kind: 'context', author: 'surface', text: 'file', source: 'README.md' }),
      item(2, { kind: 'digest', author: 'machinery', text: 'abandoned: 3 calls' }),
      item(3, {
        kind: 'compaction',
        author: 'machinery',
        rung: 'elide',
        range: { from: 'i1', to: 'i1' },
        params: {},
      }),
    ];
    const out = exportPath(path, 'claude-code');
    expect(out.notes).toHaveLength(3);
    expect(out.notes.join('\n')).toMatch(/i1: context source 'README.md'/);
    expect(out.notes.join('\n')).toMatch(/i2: a rewind digest/);
    expect(out.notes.join('\n')).toMatch(/i3: a compaction record \(elide\)/);
    expect(out.text.trim().split('\n')).toHaveLength(2);
  });

  it('refuses an unknown format, naming the known ones', () => {
    expect(() => exportPath([], 'csv' as ExportFormat)).toThrow(
      `export: format expected one of ${EXPORT_FORMATS.join(', ')}, found "csv"`,
    );
  });
});

describe('glyphfold export', () => {
  it('writes a non-tip branch without moving the tip', async () => {
    const dir = tmp();
    const { leafA, tipB } = twoBranches(dir);
    const file = join(dir, 'a.jsonl');
    const r = await runCli(['export', '--workspace', dir, 'c1', '--at', leafA, '--out', file]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/wrote 11 items as glyphfold/);
    const ws = Workspace.open(dir, { readOnly: true });
    const h = ws.history('c1', 'main', { readOnly: true });
    expect(readFileSync(file, 'utf8')).toBe(exportPath(h.pathTo(leafA), 'glyphfold').text);
    expect(h.tip).toBe(tipB);
    ws.close();
    const tip = await runCli(['export', '--workspace', dir, 'c1', '--format', 'openai-chat']);
    expect(tip.code, tip.err).toBe(0);
    expect(tip.out).toContain('Branch B');
  });

  it('says what was wrong: unknown item, format, conversation', async () => {
    const dir = tmp();
    twoBranches(dir);
    const item = await runCli(['export', '--workspace', dir, 'c1', '--at', 'it_nope']);
    expect(item.code).toBe(1);
    expect(item.err).toMatch(/pathTo: no item it_nope in conversation c1 agent main/);
    const format = await runCli(['export', '--workspace', dir, 'c1', '--format', 'csv']);
    expect(format.code).toBe(2);
    expect(format.err).toMatch(/--format: expected one of glyphfold, claude-code/);
    const conv = await runCli(['export', '--workspace', dir, 'c9']);
    expect(conv.code).toBe(1);
    expect(conv.err).toMatch(/no conversation c9 .* it has: c1/);
  });
});
