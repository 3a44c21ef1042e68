/**
 * OpenAI Chat Completions messages: a bare array or `{ messages: [...] }`. Roles: system / developer
 * (collected into `system`), user (string or text / image_url parts), assistant (content, `tool_calls`,
 * legacy `function_call`, and the `reasoning_content` / `reasoning` field some compatible servers add),
 * tool (`tool_call_id`) and legacy function.
 */
import type { NewItem } from '../items.js';
import {
  CallNames,
  PathBuilder,
  imageFromBase64,
  isRecord,
  parseArguments,
  parseDataUrl,
  typeName,
  unknownPartError,
  type ImportOptions,
  type ImportResult,
} from './build.js';

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

/** Text of content that holds only text (system, assistant, tool): a string or text / refusal parts. */
function partsText(content: unknown, where: string): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (!Array.isArray(content))
    throw new Error(
      `openai-chat: ${where}: content must be a string, null or an array of parts, found ${typeName(content)}`,
    );
  return content
    .map((p, k) => {
      if (isRecord(p) && p.type === 'text' && typeof p.text === 'string') return p.text;
      if (isRecord(p) && p.type === 'refusal' && typeof p.refusal === 'string') return p.refusal;
      // Chat-compatible servers sometimes omit the type on text parts.
      if (isRecord(p) && p.type === undefined && typeof p.text === 'string') return p.text;
      throw unknownPartError('openai-chat', `${where}.content[${k}]`, p, ['text', 'refusal']);
    })
    .filter((t) => t !== '')
    .join('\n');
}

/** True when `input` looks like a Chat Completions messages array or wrapper. */
export function looksOpenAIChat(input: unknown): boolean {
  const messages = isRecord(input) ? input.messages : input;
  if (!Array.isArray(messages) || messages.length === 0) return false;
  if (isRecord(input) && input.system !== undefined) return false; // Anthropic keeps system outside
  return messages.every((m) => isRecord(m) && typeof m.role === 'string' && ROLES.has(m.role));
}

/** True when some message uses a feature only Chat Completions has (so an Anthropic reading is wrong). */
export function hasOpenAIChatSignal(input: unknown): boolean {
  const messages = isRecord(input) ? input.messages : input;
  if (!Array.isArray(messages)) return false;
  return messages.some(
    (m) =>
      isRecord(m) &&
      (m.role === 'system' ||
        m.role === 'developer' ||
        m.role === 'tool' ||
        m.role === 'function' ||
        m.tool_calls !== undefined ||
        m.content === null ||
        (Array.isArray(m.content) && m.content.some((c) => isRecord(c) && c.type === 'image_url'))),
  );
}

/** Imports an OpenAI Chat Completions messages array or `{ messages }` wrapper. */
export function importOpenAIChat(input: unknown, options: ImportOptions = {}): ImportResult {
  const b = new PathBuilder('openai-chat');
  const messages = isRecord(input) ? input.messages : input;
  if (!Array.isArray(messages)) {
    throw new Error(
      `openai-chat: expected a messages array or { messages: [...] }, found ${typeName(messages)}`,
    );
  }
  const names = new CallNames();
  // Legacy function calls carry no id: pair each function message with the newest unanswered call of its name.
  const legacy: { name: string; callId: string }[] = [];
  messages.forEach((m, i) => {
    const where = `messages[${i}]`;
    if (!isRecord(m))
      throw new Error(`openai-chat: ${where}: expected a message object, found ${typeName(m)}`);
    b.nextGroup();
    switch (m.role) {
      case 'system':
      case 'developer':
        b.system(partsText(m.content, where));
        return;
      case 'user':
        return userMessage(m.content, where, b);
      case 'assistant': {
        const reasoning =
          typeof m.reasoning_content === 'string'
            ? m.reasoning_content
            : typeof m.reasoning === 'string'
              ? m.reasoning
              : '';
        if (reasoning !== '')
          b.push({ kind: 'reasoning', author: 'model', text: reasoning, provider: 'openai' });
        const text = partsText(m.content, where);
        if (text !== '') b.push({ kind: 'message', author: 'model', text });
        if (Array.isArray(m.tool_calls)) {
          m.tool_calls.forEach((call, k) => {
            const fn = isRecord(call) && isRecord(call.function) ? call.function : {};
            const callId = isRecord(call) ? String(call.id ?? '') : '';
            const name = String(fn.name ?? '');
            names.set(callId, name);
            const input = parseArguments(fn.arguments, `${where}.tool_calls[${k}]`, b);
            b.push({ kind: 'tool_call', author: 'model', callId, name, input });
          });
        }
        if (isRecord(m.function_call)) {
          const name = String(m.function_call.name ?? '');
          const callId = `${name}-${i}`;
          names.set(callId, name);
          legacy.push({ name, callId });
          b.push({
            kind: 'tool_call',
            author: 'model',
            callId,
            name,
            input: parseArguments(m.function_call.arguments, where, b),
          });
        }
        return;
      }
      case 'tool': {
        const callId = String(m.tool_call_id ?? '');
        b.push({
          kind: 'tool_result',
          author: 'machinery',
          callId,
          name: names.get(callId),
          content: [{ type: 'text', text: partsText(m.content, where) }],
        });
        return;
      }
      case 'function': {
        const name = String(m.name ?? '');
        const k = legacy.map((l) => l.name).lastIndexOf(name);
        const callId = k >= 0 ? legacy.splice(k, 1)[0]!.callId : `${name}-orphan-${i}`;
        b.push({
          kind: 'tool_result',
          author: 'machinery',
          callId,
          name,
          content: [{ type: 'text', text: partsText(m.content, where) }],
        });
        return;
      }
      default:
        throw new Error(
          `openai-chat: ${where}: expected role system|developer|user|assistant|tool|function, found ${JSON.stringify(m.role)}`,
        );
    }
  });
  return b.finish('openai-chat', options);
}

function userMessage(content: unknown, where: string, b: PathBuilder): void {
  if (typeof content === 'string') {
    if (content !== '') b.push({ kind: 'message', author: 'person', text: content });
    return;
  }
  if (!Array.isArray(content)) {
    b.warn(
      `${where}: expected user content as a string or an array of parts, found ${typeName(content)}; skipped`,
    );
    return;
  }
  // Text parts of one message stay one message; images keep their place before or after it.
  let text: string[] = [];
  const flush = (): void => {
    if (text.length > 0) b.push({ kind: 'message', author: 'person', text: text.join('\n') });
    text = [];
  };
  content.forEach((part, k) => {
    const at = `${where}.content[${k}]`;
    if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') {
      text.push(part.text);
    } else if (isRecord(part) && part.type === 'image_url') {
      flush();
      const url = isRecord(part.image_url) ? String(part.image_url.url ?? '') : String(part.image_url ?? '');
      const data = parseDataUrl(url);
      if (data) {
        const item: NewItem = {
          kind: 'image',
          author: 'person',
          ...imageFromBase64(data.data, data.mediaType, at, b),
        };
        b.push(item);
      } else {
        b.warn(`${at}: image_url is a remote URL, not inline data; kept as context text`);
        b.push({ kind: 'context', author: 'surface', text: `[image ${url}]`, source: 'image_url' });
      }
    } else if (isRecord(part) && (part.type === 'input_audio' || part.type === 'file')) {
      // Audio and files have no item of their own: kept as their JSON, said so.
      flush();
      b.warn(`${at}: user part of type ${String(part.type)} kept as context text`);
      b.push({ kind: 'context', author: 'surface', text: JSON.stringify(part), source: String(part.type) });
    } else {
      throw unknownPartError('openai-chat', at, part, ['text', 'image_url', 'input_audio', 'file']);
    }
  });
  flush();
}
