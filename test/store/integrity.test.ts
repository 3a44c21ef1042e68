/** Damage on disk is detected and reported with line numbers; crashes leave nothing to repair. */
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/transcript/hash.js';
import { parseLog } from '../../src/transcript/log.js';
import { LogIntegrityError, Workspace } from '../../src/store/workspace.js';

let dir: string;
let ws: Workspace;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gf-int-'));
  ws = Workspace.open(dir);
});
afterEach(() => {
  ws.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Writes `turns` turns of two items each; returns the log path. */
function seed(turns: number, conversation = 'c1'): string {
  const h = ws.history(conversation);
  for (let t = 1; t <= turns; t++) {
    h.append({ kind: 'message', author: 'person', text: `question ${t}` });
    h.append({ kind: 'message', author: 'model', text: `answer ${t}` });
    h.commit();
  }
  h.close();
  return ws.logPath(conversation, 'main');
}
const lines = (path: string): string[] => readFileSync(path, 'utf8').split('\n').slice(0, -1);
const write = (path: string, ls: string[]): void => writeFileSync(path, ls.map((l) => l + '\n').join(''));
const readOnly = () => ws.history('c1', 'main', { readOnly: true });

describe('log integrity', () => {
  it('detects an edited item by the broken hash chain, at the next line', () => {
    const path = seed(3);
    const ls = lines(path); // 1 header, then per turn: item, item, commit
    ls[4] = ls[4]!.replace('question 2', 'question two');
    write(path, ls);
    const h = readOnly();
    expect(h.problems.map((p) => [p.kind, p.line])).toEqual([['chain', 6]]);
    expect(h.problems[0]!.message).toMatch(/line 6: hash chain broken/);
    expect(h.path().map((i) => ('text' in i ? i.text : ''))).toContain('question two'); // rest loads
    h.close();
    expect(() => ws.history('c1')).toThrow(LogIntegrityError);
  });

  it('detects a removed line and an inserted line', () => {
    const path = seed(3);
    const ls = lines(path);
    write(path, [...ls.slice(0, 5), ...ls.slice(6)]);
    const removed = readOnly();
    expect(removed.problems.map((p) => [p.kind, p.line])).toContainEqual(['chain', 6]);
    removed.close();
    write(path, [...ls.slice(0, 2), ls[1]!, ...ls.slice(2)]);
    const kinds = ws.history('c1', 'main', { readOnly: true }).problems.map((p) => p.kind);
    expect(kinds).toContain('chain');
  });

  it('detects whole committed turns cut off the end (against the database head)', () => {
    const path = seed(4);
    const ls = lines(path);
    write(path, ls.slice(0, 1 + 3 * 2)); // keep turns 1-2
    const h = readOnly();
    expect(h.problems.map((p) => p.kind)).toEqual(['truncated']);
    expect(h.problems[0]!.message).toMatch(/database recorded 13 committed lines, the log has 7/);
    expect(h.turn).toBe(2);
    h.close();
    expect(() => ws.history('c1')).toThrow(/damaged; refusing to write/);
    // The evidence is not erased by looking: the next open still sees it.
    expect(readOnly().problems.map((p) => p.kind)).toEqual(['truncated']);
  });

  it('detects a log whose start was cut off', () => {
    const path = seed(2);
    write(path, lines(path).slice(1));
    const problems = readOnly().problems.map((p) => [p.kind, p.line]);
    expect(problems[0]).toEqual(['header', 1]);
  });

  it('reports malformed lines with their line numbers while the rest loads', () => {
    const path = seed(3);
    const ls = lines(path);
    ls[4] = '{"t":"item", this is not json';
    write(path, ls);
    const h = readOnly();
    const byKind = h.problems.map((p) => [p.kind, p.line]);
    expect(byKind).toContainEqual(['malformed', 5]);
    expect(byKind).toContainEqual(['chain', 6]); // line 6's prev no longer matches line 5
    expect(h.problems.find((p) => p.kind === 'malformed')!.message).toMatch(/^line 5: not valid JSON/);
    // Everything else loaded: 6 items minus the broken one.
    expect(h.items()).toHaveLength(5);
    expect(h.turn).toBe(3);
  });

  it('reports an invalid item naming the line, the item and the field', () => {
    const path = seed(1);
    const ls = lines(path);
    const entry = JSON.parse(ls[1]!) as { item: { author: string } };
    entry.item.author = 'robot';
    ls[1] = JSON.stringify(entry);
    write(path, ls);
    const p = readOnly().problems.find((x) => x.kind === 'invalid')!;
    expect(p.line).toBe(2);
    expect(p.message).toMatch(/line 2: item it_[0-9a-f]+: field 'author' expected one of/);
  });

  it('ignores and reports entries after the last commit mark, and sets them aside before writing', () => {
    const path = seed(2);
    const ls = lines(path);
    // A unit whose commit mark never made it: two complete entries and a torn third line.
    const extra = JSON.parse(ls[1]!) as Record<string, unknown>;
    appendFileSync(
      path,
      JSON.stringify({ ...extra, prev: sha256Hex(ls[6]!) }) + '\n' + '{"t":"item","item":{"id":"to',
    );
    const h = readOnly();
    expect(h.problems.map((p) => [p.kind, p.line])).toEqual([['uncommitted', 8]]);
    expect(h.problems[0]!.message).toMatch(
      /lines 8-9 come after the last commit mark \(line 7\).*1 complete entry.*torn last line/,
    );
    expect(h.items()).toHaveLength(4);
    h.close();
    const w = ws.history('c1');
    expect(w.problems[0]!.message).toMatch(/moved to .*\.tail-/);
    w.append({ kind: 'message', author: 'person', text: 'after the crash' });
    w.commit();
    w.close();
    expect(readOnly().problems).toEqual([]);
    const aside = readdirSync(dirname(path)).filter((f) => f.includes('.tail-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(dirname(path), aside[0]!), 'utf8')).toMatch(/"to$/);
  });

  it('loads the previous turn when the last write is cut at any byte', () => {
    const path = seed(3);
    const full = readFileSync(path);
    const text = full.toString('utf8');
    const lastUnitStart = Buffer.byteLength(text.split('\n').slice(0, 7).join('\n') + '\n');
    for (let cut = lastUnitStart; cut < full.length; cut++) {
      const parsed = parseLog(full.subarray(0, cut).toString('utf8'));
      const committedItems = parsed.entries.filter((e) => e.entry.t === 'item').length;
      expect(committedItems, `cut at byte ${cut}`).toBe(4);
      expect(
        parsed.problems.every((p) => p.kind === 'uncommitted'),
        `cut at byte ${cut}`,
      ).toBe(true);
      expect(parsed.problems.length, `cut at byte ${cut}`).toBe(cut === lastUnitStart ? 0 : 1);
    }
    expect(parseLog(text).entries.filter((e) => e.entry.t === 'item')).toHaveLength(6);
  });

  it('opens for writing over damage only when told to, and keeps reporting it', () => {
    const path = seed(2);
    const ls = lines(path);
    ls[2] = ls[2]!.replace('answer 1', 'answer one');
    write(path, ls);
    const h = ws.history('c1', 'main', { acceptDamage: true });
    expect(h.problems.map((p) => p.kind)).toEqual(['chain']);
    h.append({ kind: 'message', author: 'person', text: 'more' });
    h.commit();
    h.close();
    expect(readOnly().problems.map((p) => [p.kind, p.line])).toEqual([['chain', 4]]);
  });

  it('refuses ids that would escape the workspace', () => {
    for (const bad of ['../x', 'a/b', 'a\u0000b', '..', '.hidden', '', 'x'.repeat(101), 'a..b', 'c\\d'])
      expect(() => ws.history(bad), JSON.stringify(bad)).toThrow(/conversation id .* is not allowed/);
    expect(() => ws.history('ok', '../main')).toThrow(/agent id/);
    expect(existsSync(join(dir, 'x'))).toBe(false);
    expect(readdirSync(join(dir, 'logs'))).toEqual([]);
  });
});
