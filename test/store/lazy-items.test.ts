/**
 * An open history keeps an index of its log and at most `retainBytes` of item bodies; the others are
 * read back from the log by offset and checked against the hash they had when indexed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Item } from '../../src/transcript/items.js';
import { Workspace } from '../../src/store/workspace.js';
import { bashTurn } from './bash-turn.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gf-lazy-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const text = (i: Item) => ('text' in i ? i.text : i.kind);

function seed(ws: Workspace, turns: number): Item[] {
  const h = ws.history('c1');
  const all: Item[] = [];
  for (let t = 1; t <= turns; t++) {
    for (const item of bashTurn(t)) h.append(item);
    all.push(...h.commit());
  }
  h.close();
  return all;
}

describe('items read back from the log', () => {
  it('a history holds the first retainBytes of bodies and reads the rest back, equal to what was written', () => {
    const ws = Workspace.open(dir, { retainBytes: 1000 });
    const written = seed(ws, 20);
    const h = ws.history('c1', 'main', { readOnly: true });
    expect(h.itemCount).toBe(60);
    expect(h.path()).toEqual(written);
    expect(h.items()).toEqual(written);
    expect(h.get(written[59]!.id)).toEqual(written[59]);
    expect(h.children(written[3]!.id)).toEqual([written[4]]);
    // Closing releases nothing a reader needs: bodies are still read back.
    h.close();
    expect(h.path().map(text)).toEqual(written.map(text));
    ws.close();
  });

  it('a writer reads back what it committed in this session, and the next open sees the same', () => {
    const ws = Workspace.open(dir, { retainBytes: 0 });
    const h = ws.history('c1');
    h.append({ kind: 'message', author: 'person', text: 'first' });
    const [first] = h.commit();
    h.append({ kind: 'message', author: 'model', text: 'second' });
    h.commit();
    expect(h.path().map(text)).toEqual(['first', 'second']);
    expect(h.get(first!.id)).toEqual(first);
    h.branch(first!.id);
    h.append({ kind: 'message', author: 'model', text: 'other' });
    h.commit();
    expect(h.children(first!.id).map(text)).toEqual(['second', 'other']);
    h.close();
    const again = ws.history('c1', 'main', { readOnly: true });
    expect(again.path().map(text)).toEqual(['first', 'other']);
    again.close();
    ws.close();
  });

  it('a line changed under an open history is an error naming the log and the item, never a wrong item', () => {
    const ws = Workspace.open(dir, { retainBytes: 0 });
    const written = seed(ws, 3);
    const h = ws.history('c1', 'main', { readOnly: true });
    const path = ws.logPath('c1', 'main');
    // Same length, so every offset still points at the start of a line: only the hash can tell.
    writeFileSync(path, readFileSync(path, 'utf8').replace('question 2 ', 'question 9 '));
    expect(h.get(written[0]!.id)).toEqual(written[0]);
    expect(() => h.get(written[3]!.id)).toThrow(
      new RegExp(
        `log .*main\\.jsonl: item ${written[3]!.id} at byte \\d+: the bytes changed since the log was opened`,
      ),
    );
    expect(() => h.path()).toThrow(/the bytes changed/);
    h.close();
    // Reopened, the edit is damage at a known line, as for any other edit.
    const again = ws.history('c1', 'main', { readOnly: true });
    expect(again.problems.map((p) => p.kind)).toEqual(['chain']);
    again.close();
    ws.close();
  });

  it('a log cut short under an open history is an error, not a short item', () => {
    const ws = Workspace.open(dir, { retainBytes: 0 });
    const written = seed(ws, 3);
    const h = ws.history('c1', 'main', { readOnly: true });
    const path = ws.logPath('c1', 'main');
    const bytes = readFileSync(path);
    writeFileSync(path, bytes.subarray(0, bytes.length - 400));
    expect(() => h.get(written[8]!.id)).toThrow(/the log ends before the item/);
    h.close();
    ws.close();
  });
});
