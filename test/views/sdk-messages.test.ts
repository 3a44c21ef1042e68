import {
  AIMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  type StoredMessage,
} from '@langchain/core/messages';
import { modelMessageSchema, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { importTranscript } from '../../src/transcript/import/index.js';
import type { Item } from '../../src/transcript/items.js';
import { langchainMessages, vercelAIMessages } from '../../src/views/index.js';
import { PathBuilder, png } from './fixtures.js';

const shot = png(2, 2);
/** A run with text, parallel calls, a result with an image, an error result, reasoning and an orphan. */
const path = new PathBuilder()
  .person('List the files, then show the screen.')
  .add({ kind: 'reasoning', author: 'model', text: 'two tools', provider: 'anthropic', signature: 's' })
  .model('Looking.')
  .call('c1', 'bash', { cmd: 'ls' })
  .call('c2', 'screenshot', {})
  .result('c1', 'bash', 'a.txt\nb.txt')
  .result('c2', 'screenshot', 'the screen:', { images: [shot] })
  .turn()
  .person('Now delete b.txt')
  .call('c3', 'bash', 'rm b.txt')
  .result('c3', 'bash', 'rm: permission denied', { isError: true })
  .result('c9', 'bash', 'a result whose call is not in the path')
  .model('It is write-protected.').items;

/** What a history says, whatever ids it was given: authors, kinds, texts, calls and results. */
const gist = (items: readonly Item[]) =>
  items
    .filter((i) => i.kind !== 'reasoning')
    .map((i) =>
      i.kind === 'message'
        ? `${i.author}: ${i.text}`
        : i.kind === 'tool_call'
          ? `call ${i.callId} ${i.name} ${JSON.stringify(i.input)}`
          : i.kind === 'tool_result'
            ? `result ${i.callId}${i.isError ? ' error' : ''}: ${i.content.map((p) => (p.type === 'text' ? p.text : `[${p.mediaType}]`)).join(' ')}`
            : i.kind,
    );

const expected = [
  'person: List the files, then show the screen.',
  'model: Looking.',
  'call c1 bash {"cmd":"ls"}',
  'call c2 screenshot {}',
  'result c1: a.txt\nb.txt',
  'result c2: the screen: [image/png]',
  'person: Now delete b.txt',
  'call c3 bash {"input":"rm b.txt"}',
  'result c3 error: rm: permission denied',
  'model: It is write-protected.',
];

describe('vercelAIMessages', () => {
  it('gives ModelMessage[] the ai package accepts, and imports back to the same run', () => {
    const out = vercelAIMessages(path, { system: 'Be brief.' });
    // Assignable to the SDK's own type (a compile-time check) and valid for its schema (run time).
    const messages: ModelMessage[] = out.messages;
    for (const [i, m] of messages.entries())
      expect(modelMessageSchema.safeParse(m).success, `message ${i}: ${JSON.stringify(m)}`).toBe(true);
    expect(out.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(out.repairs.map((r) => r.kind)).toEqual(['dropped_orphan_result']);
    expect(out.droppedReasoning).toEqual([path[1]!.id]);
    const back = importTranscript(JSON.stringify({ system: out.system, messages }), { format: 'vercel-ai' });
    expect(back.system).toBe('Be brief.');
    // A non-object input comes back as the AI SDK carried it (a string), so compare with that.
    expect(gist(back.items)).toEqual(expected.map((l) => l.replace('{"input":"rm b.txt"}', '"rm b.txt"')));
  });

  it('puts a placeholder for images when the model has no vision', () => {
    const { messages } = vercelAIMessages(path, { vision: false });
    const tool = messages[2]!;
    expect(tool.role === 'tool' && tool.content[1]!.output).toEqual({
      type: 'text',
      value: expect.stringMatching(/^the screen:\n\[image image\/png 2x2/),
    });
  });
});

describe('langchainMessages', () => {
  it('gives stored messages @langchain/core turns into its classes, and imports back to the same run', () => {
    const out = langchainMessages(path, { system: 'Be brief.' });
    // LangChain types StoredMessageData.content as a string, though the message classes it builds take
    // content blocks too (the screenshot's result here): the one place the types disagree.
    const chat = mapStoredMessagesToChatMessages(out.messages as StoredMessage[]);
    expect(chat.map((m) => m.constructor)).toEqual([
      SystemMessage,
      HumanMessage,
      AIMessage,
      ToolMessage,
      ToolMessage,
      HumanMessage,
      AIMessage,
      ToolMessage,
      AIMessage,
    ]);
    const call = chat[2] as AIMessage;
    expect(call.tool_calls?.map((c) => [c.id, c.name, c.args])).toEqual([
      ['c1', 'bash', { cmd: 'ls' }],
      ['c2', 'screenshot', {}],
    ]);
    expect((chat[7] as ToolMessage).status).toBe('error');
    const back = importTranscript(JSON.stringify(mapChatMessagesToStoredMessages(chat)), {
      format: 'langchain',
    });
    expect(back.system).toBe('Be brief.');
    expect(gist(back.items)).toEqual(expected);
  });
});
