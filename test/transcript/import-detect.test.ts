import { describe, expect, it } from 'vitest';
import { detectFormat, importTranscript, IMPORT_FORMATS } from '../../src/transcript/import/index.js';
import { exportJsonl, parseJsonl } from '../../src/transcript/jsonl.js';
import { fixture } from './fixtures.js';

const FILES = {
  'claude-code': 'claude-code.jsonl',
  codex: 'codex.jsonl',
  'openai-chat': 'openai-chat.json',
  anthropic: 'anthropic.json',
  'vercel-ai': 'vercel-ai.json',
  langchain: 'real/langgraph-react-agent-tool-calling.langchain.json',
  'swe-agent': 'real/swe-agent-function-calling-simple.traj',
  glyphfold: 'glyphfold.jsonl',
} as const;

describe('format detection', () => {
  for (const [format, file] of Object.entries(FILES)) {
    it(`detects ${format}`, () => {
      expect(detectFormat(fixture(file))).toBe(format);
    });
  }

  it('covers every format with a fixture', () => {
    expect(Object.keys(FILES).sort()).toEqual([...IMPORT_FORMATS].sort());
  });

  it('tells Anthropic from OpenAI Chat by their blocks', () => {
    expect(
      detectFormat([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'y' }] }]),
    ).toBe('anthropic');
    expect(detectFormat({ system: 'be brief', messages: [{ role: 'user', content: 'hi' }] })).toBe(
      'anthropic',
    );
    expect(
      detectFormat([
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ]),
    ).toBe('openai-chat');
  });

  it('names every format it tried when nothing matches', () => {
    const message =
      /could not detect the format; tried claude-code .*codex .*glyphfold .*openai-chat .*anthropic .*found/;
    expect(() => importTranscript('hello world')).toThrow(message);
    expect(() => importTranscript({ foo: 1 })).toThrow(/found an object with keys foo/);
    expect(() => importTranscript('{"a":1}\n{"b":2}\n')).toThrow(message);
    expect(() => importTranscript('')).toThrow(/found empty text/);
  });
});

describe('bad input', () => {
  it('names the first bad line when no line of a JSONL file parses', () => {
    expect(() => importTranscript('not json\n{also not', { format: 'claude-code' })).toThrow(
      /^claude-code: line 1 is not valid JSON/,
    );
    expect(() => importTranscript('\n\n{broken', { format: 'codex' })).toThrow(
      /^codex: line 3 is not valid JSON/,
    );
  });

  it('reports a malformed line in the middle by number and imports the rest', () => {
    const lines = fixture('codex.jsonl').split('\n');
    lines.splice(5, 0, '{"timestamp": "2026-11-21T16:02:14Z", "type": "response_item", "payl');
    const r = importTranscript(lines.join('\n'));
    expect(r.format).toBe('codex');
    expect(r.warnings[0]).toMatch(/^line 6 is not valid JSON/);
    expect(r.items).toHaveLength(importTranscript(fixture('codex.jsonl')).items.length);
  });

  it('says what a forced format expected and found', () => {
    expect(() => importTranscript('{"messages": 3}', { format: 'anthropic' })).toThrow(
      /anthropic: expected a messages array .*found number/,
    );
    expect(() => importTranscript([{ role: 'user', content: 'x' }], { format: 'codex' })).toThrow(
      /codex is JSONL text; expected a string, found object/,
    );
    expect(() => importTranscript('[1]', { format: 'openai-chat' })).toThrow(
      /messages\[0\]: expected a message object, found number/,
    );
    expect(() => importTranscript('{"type":"x"}', { format: 'claude-code' })).toThrow(
      /no user, assistant or system entry with a uuid/,
    );
    expect(() => importTranscript('[]', { format: 'bogus' as never })).toThrow(/unknown format "bogus"/);
  });

  it('validates the id prefix and start time', () => {
    expect(() => importTranscript(fixture('anthropic.json'), { idPrefix: '../x' })).toThrow(
      /idPrefix must match/,
    );
    expect(() => importTranscript(fixture('anthropic.json'), { startTime: 'yesterday' })).toThrow(
      /startTime must be an ISO-8601 time, found yesterday/,
    );
  });
});

describe('determinism', () => {
  for (const [format, file] of Object.entries(FILES)) {
    it(`gives ${format} the same items and ids for the same input`, () => {
      const a = importTranscript(fixture(file), { idPrefix: 'run' });
      const b = importTranscript(fixture(file), { idPrefix: 'run' });
      expect(exportJsonl(a.items)).toBe(exportJsonl(b.items));
      expect(a.items[0]!.id).toBe('run-000001');
    });
  }

  it('fills missing times from startTime, one millisecond apart', () => {
    const r = importTranscript(fixture('anthropic.json'), { startTime: '2026-01-02T03:04:05.000Z' });
    expect(r.items[0]!.time).toBe('2026-01-02T03:04:05.000Z');
    expect(r.items[2]!.time).toBe('2026-01-02T03:04:05.002Z');
  });
});

describe('JSONL export and the glyphfold format', () => {
  const source = importTranscript(fixture('claude-code.jsonl'), { idPrefix: 'cc' });

  it('round-trips through exportJsonl and parseJsonl', () => {
    const text = exportJsonl(source.items);
    expect(text.split('\n')).toHaveLength(source.items.length + 1);
    expect(parseJsonl(text)).toEqual(source.items);
    expect(exportJsonl(parseJsonl(text))).toBe(text);
  });

  it('writes keys in a fixed order whatever order the object had', () => {
    const item = source.items.find((i) => i.kind === 'tool_result')!;
    const shuffled = Object.fromEntries(Object.entries(item).reverse()) as typeof item;
    expect(exportJsonl([shuffled])).toBe(exportJsonl([item]));
    expect(Object.keys(JSON.parse(exportJsonl([item])) as object).slice(0, 6)).toEqual([
      'id',
      'parent',
      'turn',
      'time',
      'kind',
      'author',
    ]);
  });

  it('matches the committed glyphfold fixture', () => {
    expect(exportJsonl(source.items)).toBe(fixture('glyphfold.jsonl'));
  });

  it('re-imports its own export with fresh ids, same content', () => {
    const back = importTranscript(fixture('glyphfold.jsonl'), { idPrefix: 'gf' });
    expect(back.format).toBe('glyphfold');
    expect(back.warnings).toEqual([]);
    const strip = (items: typeof back.items) => items.map(({ id: _i, parent: _p, ...rest }) => rest);
    expect(strip(back.items)).toEqual(strip(source.items));
    expect(back.items[1]!.parent).toBe('gf-000001');
  });

  it('parseJsonl names the line, field, expected and found', () => {
    const lines = exportJsonl(source.items.slice(0, 3)).split('\n');
    const bad = (line: string): string => [lines[0], line, lines[2]].join('\n');
    expect(() => parseJsonl(bad('{oops'))).toThrow(/^jsonl: line 2 is not valid JSON/);
    expect(() => parseJsonl(bad(lines[1]!.replace('"turn":1', '"turn":"1"')))).toThrow(
      /line 2: field "turn" expected number, found string/,
    );
    expect(() => parseJsonl(bad(lines[1]!.replace('"author":"surface"', '"author":"model"')))).toThrow(
      /line 2: a context item's author expected surface, found "model"/,
    );
    expect(() => parseJsonl(bad(lines[1]!.replace('"kind":"context"', '"kind":"note"')))).toThrow(
      /line 2: field "kind" expected one of/,
    );
  });
});
