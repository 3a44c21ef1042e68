/**
 * An unknown content part type is an error naming the part and where it is, in every importer: never
 * skipped, never guessed at.
 */
import { describe, expect, it } from 'vitest';
import { importTranscript, IMPORT_FORMATS, type ImportFormat } from '../../src/transcript/import/index.js';

const H = { type: 'hologram', data: 1 };
const jsonl = (lines: object[]): string => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
const cc = (type: 'user' | 'assistant', uuid: string, parent: string | null, content: unknown) => ({
  type,
  uuid,
  parentUuid: parent,
  sessionId: 's',
  timestamp: '2026-11-30T10:00:00.000Z',
  message: { role: type, content },
});
const cx = (payload: object) => ({ timestamp: '2026-11-30T10:00:00.000Z', type: 'response_item', payload });

/** Per format: an input with one unknown part, and what the error must say. */
const CASES: Record<ImportFormat, [input: unknown, message: string][]> = {
  anthropic: [
    [
      [{ role: 'user', content: [{ type: 'text', text: 'hi' }, H] }],
      'anthropic: messages[0] block 1: unknown content part type "hologram"',
    ],
    [
      [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [H] },
      ],
      'anthropic: messages[1] block 0: unknown content part type "hologram"',
    ],
    [
      [
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'x', input: {} }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'a' }, H] }],
        },
      ],
      'anthropic: messages[1] block 0 content[1]: unknown content part type "hologram"',
    ],
  ],
  'claude-code': [
    [
      jsonl([cc('user', 'u1', null, 'hi'), cc('assistant', 'a1', 'u1', [{ type: 'text', text: 'ok' }, H])]),
      'claude-code: line 2 block 1: unknown content part type "hologram"',
    ],
  ],
  codex: [
    [
      jsonl([cx({ type: 'message', role: 'user', content: [H] })]),
      'codex: line 1 content[0]: unknown content part type "hologram"',
    ],
    [
      jsonl([
        cx({ type: 'function_call', call_id: 'c', name: 'x', arguments: '{}' }),
        cx({ type: 'function_call_output', call_id: 'c', output: [{ type: 'input_text', text: 'a' }, H] }),
      ]),
      'codex: line 2 output[1]: unknown content part type "hologram"',
    ],
  ],
  'openai-chat': [
    [
      [
        { role: 'system', content: 's' },
        { role: 'user', content: [H] },
      ],
      'openai-chat: messages[1].content[0]: unknown content part type "hologram"',
    ],
    [
      [
        { role: 'system', content: 's' },
        { role: 'assistant', content: [{ type: 'text', text: 'a' }, H] },
      ],
      'openai-chat: messages[1].content[1]: unknown content part type "hologram"',
    ],
  ],
  'vercel-ai': [
    [
      [{ role: 'user', content: [{ type: 'file', data: 'aGk=', mediaType: 'text/plain' }, H] }],
      'vercel-ai: messages[0].content[1]: unknown content part type "hologram"',
    ],
  ],
  langchain: [
    [
      [{ type: 'human', data: { content: [{ type: 'text', text: 'a' }, H] } }],
      'langchain: messages[0].content[1]: unknown content block type "hologram"',
    ],
  ],
  'swe-agent': [
    [
      { history: [{ role: 'user', content: [H], agent: 'main' }] },
      'swe-agent: history[0].content[0]: unknown content part type "hologram"',
    ],
  ],
  glyphfold: [
    [
      jsonl([
        {
          id: 'a',
          parent: null,
          turn: 1,
          time: '2026-11-30T10:00:00.000Z',
          kind: 'tool_result',
          author: 'machinery',
          callId: 'c',
          name: 'x',
          content: [H],
        },
      ]),
      'content[0].type',
    ],
  ],
};

describe('unknown content parts', () => {
  it('have a case for every format', () => {
    expect(Object.keys(CASES).sort()).toEqual([...IMPORT_FORMATS].sort());
  });
  for (const [format, cases] of Object.entries(CASES) as [ImportFormat, [unknown, string][]][]) {
    cases.forEach(([input, message], i) => {
      it(`${format} #${i + 1}: refused, naming the part and its position`, () => {
        expect(() => importTranscript(input, { format })).toThrow(message);
      });
    });
  }
});
