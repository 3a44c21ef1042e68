import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/transcript/canonical.js';
import { sha256Hex } from '../../src/transcript/hash.js';
import {
  encodeEntries,
  encodeHeader,
  LOG_VERSION,
  MIGRATIONS,
  parseLog,
  type LogEntry,
} from '../../src/transcript/log.js';
import { exportJsonl } from '../../src/transcript/jsonl.js';
import type { Item } from '../../src/transcript/items.js';

const time = '2026-11-29T00:00:00.000Z';
const msg = (id: string, parent: string | null, text: string): Item => ({
  id,
  parent,
  turn: 1,
  time,
  kind: 'message',
  author: 'person',
  text,
});

function log(...units: LogEntry[][]): string {
  const header = encodeHeader({ t: 'header', v: 1, conversation: 'c', agent: 'main', created: time });
  let text = header.text;
  let prev = header.hash;
  for (const unit of units) {
    const e = encodeEntries(unit, prev);
    text += e.text;
    prev = e.lastHash;
  }
  return text;
}

describe('canonical JSON', () => {
  it('sorts keys, drops undefined members, and is stable', () => {
    expect(canonicalJson({ b: 1, a: [1, { d: undefined, c: 'x' }], e: null })).toBe(
      '{"a":[1,{"c":"x"}],"b":1,"e":null}',
    );
    expect(canonicalJson({ x: 1, y: 2 })).toBe(canonicalJson({ y: 2, x: 1 }));
    expect(() => canonicalJson({ n: NaN })).toThrow(/\$\.n is NaN, expected a finite number/);
  });
});

describe('log format', () => {
  it('chains every line to the previous one by sha256 of its bytes', () => {
    const text = log([
      { t: 'item', item: msg('a', null, 'hi') },
      { t: 'commit', turn: 1, time },
    ]);
    const lines = text.split('\n');
    expect((JSON.parse(lines[1]!) as { prev: string }).prev).toBe(sha256Hex(lines[0]!));
    expect((JSON.parse(lines[2]!) as { prev: string }).prev).toBe(sha256Hex(lines[1]!));
    const parsed = parseLog(text);
    expect(parsed.problems).toEqual([]);
    expect(parsed.header?.v).toBe(LOG_VERSION);
    expect(parsed.entries.map((e) => [e.line, e.entry.t])).toEqual([
      [2, 'item'],
      [3, 'commit'],
    ]);
    expect(parsed.committedBytes).toBe(Buffer.byteLength(text));
  });

  it('refuses a log from a newer format version', () => {
    const text =
      JSON.stringify({ t: 'header', v: LOG_VERSION + 1, conversation: 'c', agent: 'a', created: time }) +
      '\n';
    const parsed = parseLog(text);
    expect(parsed.problems).toEqual([
      {
        kind: 'version',
        line: 1,
        message: expect.stringMatching(
          /version 2 is not supported \(this code reads 1\.\.1\)/,
        ) as unknown as string,
      },
    ]);
    expect(parsed.entries).toEqual([]);
  });

  it('upgrades older versions one migration step at a time (header and entries)', () => {
    expect(MIGRATIONS).toHaveLength(LOG_VERSION - 1);
    // A hypothetical v1 → v2 step renaming `text` to `body`, to show the mechanism end to end.
    const v1 = log([
      { t: 'item', item: msg('a', null, 'hi') },
      { t: 'commit', turn: 1, time },
    ]);
    const seen: string[] = [];
    const parsed = parseLog(v1, {
      migrations: [
        (e) => {
          seen.push(String(e.t));
          return e.t === 'header' ? { ...e, v: 2 } : e;
        },
      ],
    });
    expect(seen).toEqual(['header', 'item', 'commit']);
    expect(parsed.header?.v).toBe(2);
    expect(parsed.problems).toEqual([]);
  });

  it('rejects unknown entry types with the line number', () => {
    const text = log([{ t: 'bogus' } as unknown as LogEntry, { t: 'commit', turn: 1, time }]);
    expect(parseLog(text).problems).toEqual([
      {
        kind: 'invalid',
        line: 2,
        message: expect.stringMatching(/^line 2: unknown entry type "bogus"/) as unknown as string,
      },
    ]);
  });
});

describe('exportJsonl', () => {
  it('writes one item per line, deterministically', () => {
    const items = [msg('a', null, 'one'), msg('b', 'a', 'two\nlines')];
    const out = exportJsonl(items);
    expect(out.split('\n')).toHaveLength(3);
    expect(
      out
        .split('\n')
        .slice(0, 2)
        .map((l) => JSON.parse(l) as Item),
    ).toEqual(items);
    expect(exportJsonl(items)).toBe(out);
    expect(exportJsonl([])).toBe('');
  });
});
