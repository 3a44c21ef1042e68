import { describe, expect, it } from 'vitest';
import {
  LEADING_USER_TEXT,
  screenView,
  formatScreen,
  describeHidden,
  wireView,
  wrapContext,
} from '../../src/views/index.js';
import { safeCallId } from '../../src/views/normalize.js';
import { resolveProfile } from '../../src/providers/index.js';
import {
  validateAnthropic,
  validateGemini,
  validateOpenAIChat,
  validateOpenAIResponses,
} from '../helpers/wire-shapes.js';
import { agentRun, PathBuilder, png, TOOLS } from './fixtures.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('anthropic view', () => {
  it('places at most 4 cache breakpoints: last tool, system, end of stable prefix, end of request', () => {
    const { body } = wireView('anthropic', agentRun('anthropic'), {
      model: 'm',
      system: 'S',
      memory: 'M',
      tools: TOOLS,
    });
    const b = body as Json;
    const marked: string[] = [];
    b.tools.forEach((t: Json, i: number) => t.cache_control && marked.push(`tools[${i}]`));
    b.system.forEach((t: Json, i: number) => t.cache_control && marked.push(`system[${i}]`));
    b.messages.forEach((m: Json, i: number) =>
      m.content.forEach((c: Json, j: number) => c.cache_control && marked.push(`messages[${i}][${j}]`)),
    );
    const last = b.messages.length - 1;
    expect(marked).toEqual([
      `tools[${TOOLS.length - 1}]`,
      'system[1]',
      `messages[${last - 1}][0]`,
      `messages[${last}][0]`,
    ]);
    expect(validateAnthropic(body)).toEqual([]);
  });

  it('puts the stable-prefix breakpoint on the item the caller names, and none when cache is off', () => {
    const path = agentRun('anthropic');
    const shot = path.find((i) => i.kind === 'tool_result' && i.callId === 'call_shot')!;
    const b = wireView('anthropic', path, { model: 'm', stablePrefixEnd: shot.id }).body as Json;
    const hit = b.messages.flatMap((m: Json) => m.content).filter((c: Json) => c.cache_control);
    expect(hit.map((c: Json) => c.tool_use_id ?? c.text)).toEqual(['call_shot', 'Thanks. Anything else?']);
    const off = JSON.stringify(wireView('anthropic', path, { model: 'm', cache: false }).body);
    expect(off).not.toContain('cache_control');
  });

  it('passes thinking back only to Anthropic, with its signature; other families drop it', () => {
    const anthropicPath = agentRun('anthropic');
    const a = JSON.stringify(wireView('anthropic', anthropicPath, { model: 'm' }).body);
    expect(a).toContain('"signature":"sig-A1"');
    // The redacted reasoning-only turn sits in an earlier turn: left out, neighbours merged.
    expect(a).not.toContain('redacted-blob');
    const g = JSON.stringify(wireView('gemini', anthropicPath, { model: 'm' }).body);
    expect(g).not.toContain('sig-A1');
    const o = JSON.stringify(wireView('openai-responses', anthropicPath, { model: 'm' }).body);
    expect(o).not.toContain('"type":"reasoning"');
  });

  it('keeps redacted_thinking when it is in the current turn', () => {
    const b = new PathBuilder()
      .person('go')
      .add({ kind: 'reasoning', author: 'model', text: '', provider: 'anthropic', encrypted: 'blob' })
      .call('t1', 'read_file', { path: 'a' })
      .result('t1', 'read_file', 'x');
    const body = wireView('anthropic', b.items, { model: 'm' }).body as Json;
    expect(body.messages[1].content[0]).toEqual({ type: 'redacted_thinking', data: 'blob' });
    expect(validateAnthropic(body)).toEqual([]);
  });

  it('opens with a user turn when the path opens with the model (and reports it)', () => {
    const path = new PathBuilder().model('Resuming.').person('ok').items;
    const { body, repairs } = wireView('anthropic', path, { model: 'm' });
    expect((body as Json).messages[0]).toEqual({
      role: 'user',
      content: [{ type: 'text', text: LEADING_USER_TEXT }],
    });
    expect(repairs.map((r) => r.kind)).toEqual(['leading_user_turn']);
    expect(wireView('openai-chat', path, { model: 'm' }).repairs).toEqual([]);
  });

  it('rewrites call ids Anthropic would reject, the same way in the call and its result', () => {
    const path = new PathBuilder()
      .person('go')
      .call('functions.read:0', 'read_file', {})
      .result('functions.read:0', 'read_file', 'x').items;
    const body = wireView('anthropic', path, { model: 'm' }).body as Json;
    const id = body.messages[1].content[0].id;
    expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(body.messages[2].content[0].tool_use_id).toBe(id);
    expect(safeCallId('functions.read:0', { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 64 })).toBe(id);
    expect(safeCallId('functions.read:1', { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 64 })).not.toBe(id);
  });
});

describe('openai views', () => {
  it('chat: tool messages follow the assistant message directly; tool images follow them in a user message', () => {
    const body = wireView('openai-chat', agentRun('openai'), { model: 'm', imageDetail: 'low' }).body as Json;
    const roles = body.messages.map((m: Json) => m.role);
    const shot = roles.indexOf('tool', roles.indexOf('tool', roles.indexOf('tool') + 2));
    expect(body.messages[shot]).toMatchObject({ role: 'tool', tool_call_id: 'call_shot' });
    expect(body.messages[shot + 1].role).toBe('user');
    expect(body.messages[shot + 1].content[1].image_url.detail).toBe('low');
    // Empty assistant text with only tool calls: content null.
    expect(body.messages.find((m: Json) => m.tool_calls?.[0]?.id === 'call_read_1').content).toBeNull();
    // Tool errors are marked in the text (Chat has no error flag).
    expect(body.messages.find((m: Json) => m.tool_call_id === 'call_read_2').content).toMatch(
      /^\[tool error\] ENOENT/,
    );
    expect(validateOpenAIChat(body)).toEqual([]);
  });

  it('responses: encrypted reasoning goes back verbatim with its id', () => {
    const body = wireView('openai-responses', agentRun('openai'), { model: 'm' }).body as Json;
    const reasoning = body.input.filter((i: Json) => i.type === 'reasoning');
    expect(reasoning).toEqual([
      {
        type: 'reasoning',
        id: 'rs_001',
        summary: [{ type: 'summary_text', text: 'Read both files.' }],
        encrypted_content: 'gAAAAenc001',
      },
      { type: 'reasoning', id: 'rs_002', summary: [], encrypted_content: 'gAAAAenc002' },
    ]);
    expect(validateOpenAIResponses(body)).toEqual([]);
  });

  it('responses: previous_response_id sends only the items after the response', () => {
    const path = agentRun('openai');
    const after = path.find((i) => i.kind === 'tool_call' && i.callId === 'call_read_2')!.id;
    const { body } = wireView('openai-responses', path, {
      model: 'm',
      system: 'S',
      previousResponse: { id: 'resp_1', after },
    });
    const b = body as Json;
    expect(b.previous_response_id).toBe('resp_1');
    expect(b.instructions).toBe('S');
    expect(b.input[0]).toMatchObject({ type: 'function_call_output', call_id: 'call_read_1' });
    expect(validateOpenAIResponses(body)).toEqual([]);
    expect(() =>
      wireView('openai-responses', path, { model: 'm', previousResponse: { id: 'r', after: 'nope' } }),
    ).toThrow(/item 'nope' is not in the path/);
    expect(() => wireView('anthropic', path, { model: 'm', previousResponse: { id: 'r', after } })).toThrow(
      /OpenAI Responses/,
    );
  });
});

describe('gemini view', () => {
  it('keeps thought signatures verbatim on the parts they came with', () => {
    const body = wireView('gemini', agentRun('gemini'), { model: 'm', system: 'S' }).body as Json;
    const parts = body.contents.flatMap((c: Json) => c.parts);
    expect(parts.find((p: Json) => p.functionCall?.id === 'call_read_1').thoughtSignature).toBe(
      'gsig-call-1',
    );
    expect(parts.find((p: Json) => p.text === 'Taking a screenshot.').thoughtSignature).toBe('gsig-text-3');
    expect(parts.find((p: Json) => p.thoughtSignature === 'gsig-thought-2').thought).toBe(true);
    expect(
      parts.find((p: Json) => p.functionResponse?.id === 'call_read_2').functionResponse.response,
    ).toEqual({
      error: 'ENOENT: no such file',
    });
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'S' }] });
    expect(validateGemini(body)).toEqual([]);
  });
});

describe('shared normalisation', () => {
  it('sends context, summaries and digests as user text in their wrappers; compaction markers stay out', () => {
    for (const provider of ['anthropic', 'openai-chat', 'openai-responses', 'gemini'] as const) {
      const text = JSON.stringify(wireView(provider, agentRun(), { model: 'm' }).body);
      expect(text).toContain(
        JSON.stringify(wrapContext('src/app.ts:\nexport const x = 1;', 'src/app.ts')).slice(1, -1),
      );
      expect(text).toContain(
        '<summary from=\\"p1\\" to=\\"p4\\">\\nEarlier: the person asked for a fix.\\n</summary>',
      );
      expect(text).toContain('<digest checkpoint=\\"before-edit\\">');
      expect(text).not.toContain('compaction');
    }
  });

  it('turns images into a text placeholder for a model without vision', () => {
    const body = wireView('anthropic', agentRun(), {
      model: 'm',
      profile: { ...resolveProfile('claude-haiku-4-5').profile, vision: false },
    }).body;
    const text = JSON.stringify(body);
    expect(text).not.toContain('"type":"image"');
    expect(text).toContain('[image image/png 56x28 not shown: this model has no vision]');
    expect(validateAnthropic(body)).toEqual([]);
  });
});

describe('screen view', () => {
  it('shows person and model bubbles with images, and counts what it hides', () => {
    const view = screenView(agentRun());
    expect(view.bubbles.map((b) => [b.who, b.text, b.images.length])).toEqual([
      ['person', 'Fix the failing test and show me the page.', 0],
      ['person', 'The test file moved to spec/. Also, here is what I see:', 1],
      ['model', 'Taking a screenshot.', 0],
      ['model', 'The test fails because the file moved. Fixed.', 0],
      ['person', 'Thanks. Anything else?', 0],
    ]);
    expect(view.hidden).toEqual({ toolCalls: 4, toolResults: 4, context: 1, reasoning: 2, summaries: 3 });
    expect(describeHidden(view.bubbles[1]!.hiddenBefore)).toBe(
      '2 tool calls, 2 tool results, 2 reasoning blocks hidden',
    );
    const text = formatScreen(view);
    expect(text).toContain('You:\n  Fix the failing test');
    expect(text).toContain('[image image/png 56x28]');
    expect(text).not.toContain('ENOENT');
  });

  it('shows an image from a tool as hidden context, not as a bubble', () => {
    const path = new PathBuilder()
      .person('look')
      .add({ kind: 'image', author: 'machinery', ...png(10, 10) }).items;
    expect(screenView(path).bubbles).toHaveLength(1);
    expect(screenView(path).hiddenAfter.context).toBe(1);
  });
});

describe('reasoning a format cannot carry is a reported repair, not a silent drop', () => {
  it('names a reasoning item without provider, a foreign one and an unsigned one', () => {
    const b = new PathBuilder()
      .person('go')
      .add({ kind: 'reasoning', author: 'model', text: 'no provider named' })
      .add({ kind: 'reasoning', author: 'model', text: 'from gemini', provider: 'gemini', signature: 'g' })
      .add({ kind: 'reasoning', author: 'model', text: 'unsigned', provider: 'anthropic' })
      .add({ kind: 'reasoning', author: 'model', text: 'kept', provider: 'anthropic', signature: 'sig' })
      .call('a', 'f', {})
      .result('a', 'f', 'ok');
    const { body, repairs } = wireView('anthropic', b.items, { model: 'claude-sonnet-4-5' });
    const dropped = repairs.filter((r) => r.kind === 'dropped_reasoning');
    expect(dropped.map((r) => r.itemId)).toEqual(['p2', 'p3', 'p4']);
    expect(dropped[0]!.detail).toMatch(/names no provider/);
    expect(dropped[1]!.detail).toMatch(/came from gemini/);
    expect(dropped[2]!.detail).toMatch(/neither a signature nor encrypted/);
    const text = JSON.stringify(body);
    expect(text).toContain('"thinking":"kept"');
    expect(text).not.toContain('no provider named');
  });
});
