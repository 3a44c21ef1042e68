/** The body validators catch what the providers reject (so tests that pass them mean something). */
import { describe, expect, it } from 'vitest';
import {
  validateAnthropic,
  validateGemini,
  validateOpenAIChat,
  validateOpenAIResponses,
} from '../helpers/wire-shapes.js';

const call = { type: 'tool_use', id: 't1', name: 'f', input: {} };
const result = { type: 'tool_result', tool_use_id: 't1', content: 'ok' };

describe('wire-shape validators', () => {
  it('anthropic: pairing, result position, empty text, roles, breakpoints', () => {
    const base = { model: 'm', max_tokens: 10 };
    expect(
      validateAnthropic({
        ...base,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [call] },
          { role: 'user', content: [result] },
        ],
      }),
    ).toEqual([]);
    expect(
      validateAnthropic({
        ...base,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [call] },
          { role: 'user', content: [{ type: 'text', text: 'x' }, result] },
        ],
      }).join('\n'),
    ).toMatch(/Did not find 1 `tool_result` block\(s\) at the beginning/);
    expect(
      validateAnthropic({ ...base, messages: [{ role: 'user', content: [result] }] }).join('\n'),
    ).toMatch(/unexpected tool_use_id found in tool_result blocks: t1/);
    expect(
      validateAnthropic({
        ...base,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [call] },
        ],
      }).join('\n'),
    ).toMatch(/tool_use ids were found without tool_result blocks immediately after: t1/);
    expect(
      validateAnthropic({
        ...base,
        messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }],
      }).join('\n'),
    ).toMatch(/expected non-empty text/);
    expect(
      validateAnthropic({
        ...base,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
        ],
      }).join('\n'),
    ).toMatch(/alternating roles/);
    const cc = { cache_control: { type: 'ephemeral' } };
    const five = Array.from({ length: 5 }, (_, i) => ({ type: 'text', text: `s${i}`, ...cc }));
    expect(
      validateAnthropic({ ...base, system: five, messages: [{ role: 'user', content: 'a' }] }).join('\n'),
    ).toMatch(/at most 4 cache_control breakpoints, found 5/);
  });

  it('openai chat: unanswered calls, stray tool messages, missing detail, long ids', () => {
    const assistant = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
    };
    expect(
      validateOpenAIChat({
        model: 'm',
        messages: [
          { role: 'user', content: 'hi' },
          assistant,
          { role: 'tool', tool_call_id: 'c1', content: 'x' },
        ],
      }),
    ).toEqual([]);
    expect(
      validateOpenAIChat({
        model: 'm',
        messages: [{ role: 'user', content: 'hi' }, assistant, { role: 'user', content: 'x' }],
      }).join('\n'),
    ).toMatch(/did not have response messages: c1/);
    expect(
      validateOpenAIChat({ model: 'm', messages: [{ role: 'tool', tool_call_id: 'c9', content: 'x' }] }).join(
        '\n',
      ),
    ).toMatch(/must be a response to a preceeding message/);
    expect(
      validateOpenAIChat({
        model: 'm',
        messages: [
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } }] },
        ],
      }).join('\n'),
    ).toMatch(/explicit detail/);
    const long = { ...assistant, tool_calls: [{ ...assistant.tool_calls[0], id: 'x'.repeat(41) }] };
    expect(
      validateOpenAIChat({
        model: 'm',
        messages: [long, { role: 'tool', tool_call_id: 'x'.repeat(41), content: 'x' }],
      }).join('\n'),
    ).toMatch(/at most 40 characters/);
  });

  it('openai responses: unanswered calls and orphan outputs (unless chained)', () => {
    const fc = { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' };
    const out = { type: 'function_call_output', call_id: 'c1', output: 'x' };
    expect(validateOpenAIResponses({ model: 'm', input: [fc, out] })).toEqual([]);
    expect(validateOpenAIResponses({ model: 'm', input: [fc] }).join('\n')).toMatch(
      /No tool output found for function call c1/,
    );
    expect(validateOpenAIResponses({ model: 'm', input: [out] }).join('\n')).toMatch(
      /No tool call found for function call output with call_id c1/,
    );
    expect(validateOpenAIResponses({ model: 'm', previous_response_id: 'r', input: [out] })).toEqual([]);
  });

  it('gemini: response count, call placement, struct responses, one data field per part', () => {
    const call1 = { functionCall: { name: 'f', args: {} } };
    const resp = { functionResponse: { name: 'f', response: { output: 'x' } } };
    expect(
      validateGemini({
        contents: [
          { role: 'user', parts: [{ text: 'hi' }] },
          { role: 'model', parts: [call1, call1] },
          { role: 'user', parts: [resp, resp] },
        ],
      }),
    ).toEqual([]);
    expect(
      validateGemini({
        contents: [
          { role: 'user', parts: [{ text: 'hi' }] },
          { role: 'model', parts: [call1, call1] },
          { role: 'user', parts: [resp] },
        ],
      }).join('\n'),
    ).toMatch(/number of function response parts is equal to the number of function call parts/);
    expect(
      validateGemini({
        contents: [
          { role: 'model', parts: [{ text: 'a' }] },
          { role: 'model', parts: [call1] },
          { role: 'user', parts: [resp] },
        ],
      }).join('\n'),
    ).toMatch(/function call turn comes immediately after a user turn/);
    expect(
      validateGemini({
        contents: [
          { role: 'user', parts: [{ text: 'a', inlineData: { mimeType: 'image/png', data: 'AA' } }] },
        ],
      }).join('\n'),
    ).toMatch(/exactly one data field/);
    expect(
      validateGemini({
        contents: [
          { role: 'model', parts: [call1] },
          { role: 'user', parts: [{ functionResponse: { name: 'f', response: 'x' } }] },
        ],
      }).join('\n'),
    ).toMatch(/an object \(a JSON Struct\)/);
  });
});
