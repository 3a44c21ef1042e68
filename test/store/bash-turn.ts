import type { NewItem } from '../../src/transcript/items.js';

/** Turn `t` of the lazy-loading tests: a person's question (~110 bytes), a bash call and its result. */
export function bashTurn(t: number): NewItem[] {
  return [
    { kind: 'message', author: 'person', text: `question ${t} ${'x'.repeat(100)}` },
    { kind: 'tool_call', author: 'model', callId: `c${t}`, name: 'bash', input: { cmd: `ls ${t}` } },
    {
      kind: 'tool_result',
      author: 'machinery',
      callId: `c${t}`,
      name: 'bash',
      content: [{ type: 'text', text: `out ${t}` }],
    },
  ];
}
