/**
 * Provider responses → the items a harness appends to its history. One function per response shape
 * (Anthropic `Message`, OpenAI `ChatCompletion`, OpenAI Responses `Response`, Gemini
 * `GenerateContentResponse`), each a thin layer over the importer that already reads that provider's
 * messages, so a reply and a replayed transcript become the same items. Reasoning keeps what the
 * provider needs back: `provider` set, Anthropic's signature / redacted data, OpenAI's encrypted content
 * and `rs_…` id (in `signature`), Gemini's thought signatures.
 *
 * Returned items are `NewItem`s (no id, parent, turn or time): `history.append` gives them those.
 * Streams: `streams.ts` folds raw stream events into these same replies (`anthropicStream()` …), or
 * pass what the SDK accumulated (`stream.finalMessage()`, `finalChatCompletion()`, `finalResponse()`).
 */
import type { NewItem, ReasoningItem } from '../items.js';
import { importAnthropic } from './anthropic.js';
import { isRecord, type ImportResult } from './build.js';
import { importCodex } from './codex.js';
import { importOpenAIChat } from './openai-chat.js';

/** What an importer returns, as items to append (the history assigns ids, parents, turns and times). */
function fresh(result: ImportResult): NewItem[] {
  return result.items.map((item) => {
    const { id: _id, parent: _parent, turn: _turn, time: _time, ...rest } = item;
    return rest as NewItem;
  });
}

function expectArray(value: unknown, where: string, expected: string): readonly unknown[] {
  if (!Array.isArray(value))
    throw new Error(
      `${where}: expected ${expected} (an array), found ${value === null ? 'null' : typeof value}`,
    );
  return value;
}

/** An Anthropic `Message` (`client.messages.create(…)`, or a stream's `finalMessage()`) → items. */
export function anthropicResponseItems(message: { content: readonly unknown[] }): NewItem[] {
  const content = expectArray(message?.content, 'anthropicResponseItems', 'message.content');
  return fresh(importAnthropic([{ role: 'assistant', content }], { idPrefix: 'response' }));
}

/**
 * An OpenAI `ChatCompletion` → the items of its first choice (Chat Completions carries no reasoning;
 * a `refusal` is the message's text).
 */
export function openaiChatResponseItems(completion: {
  choices: ReadonlyArray<{ message: unknown }>;
}): NewItem[] {
  const choices = expectArray(completion?.choices, 'openaiChatResponseItems', 'completion.choices');
  const first = choices[0];
  if (!isRecord(first) || !isRecord(first.message))
    throw new Error('openaiChatResponseItems: expected choices[0].message, found none');
  // The importer reads conversations: the message alone, with `role` as the API sends it. A refusal
  // comes with `content: null`; it is what the model said, so it is kept as the message's text.
  const message = first.message;
  const refused =
    (message.content === null || message.content === undefined || message.content === '') &&
    typeof message.refusal === 'string' &&
    message.refusal !== '';
  const content = refused ? message.refusal : message.content;
  return fresh(importOpenAIChat([{ ...message, content, role: 'assistant' }], { idPrefix: 'response' }));
}

/**
 * An OpenAI Responses `Response` → items, from its `output` (messages, function calls, reasoning with
 * its `encrypted_content` when the request asked for `include: ['reasoning.encrypted_content']`).
 */
export function openaiResponsesItems(response: { output: readonly unknown[] }): NewItem[] {
  const output = expectArray(response?.output, 'openaiResponsesItems', 'response.output');
  if (output.length === 0) return [];
  // The Codex importer reads Responses items as rollout lines; the reply's items are exactly those.
  const lines = output.map((payload) => JSON.stringify({ type: 'response_item', payload })).join('\n');
  const items = fresh(importCodex(lines, { idPrefix: 'response' }));
  // Keep each reasoning item's `rs_…` id (views send it back as `id`), in output order.
  const ids = output
    .filter((o) => isRecord(o) && o.type === 'reasoning')
    .map((o) => (isRecord(o) && typeof o.id === 'string' ? o.id : undefined));
  let k = 0;
  for (const item of items) {
    if (item.kind !== 'reasoning') continue;
    const id = ids[k++];
    if (id !== undefined) (item as ReasoningItem).signature = id;
  }
  return items;
}

interface GeminiPartIn {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { id?: string; name?: string; args?: unknown };
}

/**
 * A Gemini `GenerateContentResponse` (REST JSON, or `@google/genai`'s result) → the items of its first
 * candidate. Call ids Gemini leaves out are numbered (`gemini-call-N`) so results can pair with them.
 */
export function geminiResponseItems(response: {
  candidates?: ReadonlyArray<{ content?: { parts?: readonly unknown[] } }>;
}): NewItem[] {
  const parts = response?.candidates?.[0]?.content?.parts;
  if (parts === undefined) return [];
  const items: NewItem[] = [];
  let calls = 0;
  expectArray(parts, 'geminiResponseItems', 'candidates[0].content.parts').forEach((raw, i) => {
    if (!isRecord(raw)) throw new Error(`geminiResponseItems: part ${i} is not an object`);
    const p = raw as GeminiPartIn;
    const signature = typeof p.thoughtSignature === 'string' ? { signature: p.thoughtSignature } : {};
    if (p.functionCall) {
      calls++;
      const call: NewItem = {
        kind: 'tool_call',
        author: 'model',
        callId: p.functionCall.id ?? `gemini-call-${calls}`,
        name: String(p.functionCall.name ?? ''),
        input: p.functionCall.args ?? {},
        ...signature,
      };
      items.push(call);
    } else if (typeof p.text === 'string') {
      if (p.thought)
        items.push({ kind: 'reasoning', author: 'model', text: p.text, provider: 'gemini', ...signature });
      else items.push({ kind: 'message', author: 'model', text: p.text, ...signature });
    } else {
      throw new Error(
        `geminiResponseItems: part ${i} has none of text, thought, functionCall (found ${Object.keys(raw).join(', ')})`,
      );
    }
  });
  return items;
}
