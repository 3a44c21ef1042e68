/**
 * LangChain messages as they are stored: the serialized form `JSON.stringify(message)` / `dumpd`
 * writes (`{ lc: 1, type: 'constructor', id: [..., 'HumanMessage'], kwargs: {...} }`) and the plain
 * form of `mapChatMessagesToStoredMessages` / `message_to_dict` (`{ type: 'human', data: {...} }`).
 * A bare array or `{ messages: [...] }` (a LangGraph state). Human, AI, tool, system, chat and function
 * messages; tool calls from `tool_calls` ({ name, args, id }) or, in older records, the OpenAI-shaped
 * `additional_kwargs.tool_calls`. A content block type not listed here is an error.
 */
import type { ContentPart, NewItem } from '../items.js';
import {
  CallNames,
  PathBuilder,
  imageFromBase64,
  isRecord,
  parseArguments,
  parseDataUrl,
  typeName,
  type ImportOptions,
  type ImportResult,
} from './build.js';

/** Class names of the serialized form → the type names of the stored form. */
const CLASSES: Readonly<Record<string, string>> = {
  HumanMessage: 'human',
  HumanMessageChunk: 'human',
  AIMessage: 'ai',
  AIMessageChunk: 'ai',
  ToolMessage: 'tool',
  ToolMessageChunk: 'tool',
  SystemMessage: 'system',
  SystemMessageChunk: 'system',
  ChatMessage: 'chat',
  ChatMessageChunk: 'chat',
  FunctionMessage: 'function',
  FunctionMessageChunk: 'function',
  RemoveMessage: 'remove',
};
const TYPES = new Set([
  'human',
  'ai',
  'tool',
  'system',
  'developer',
  'chat',
  'function',
  'generic',
  'remove',
]);

const messagesOf = (input: unknown): unknown => (isRecord(input) ? input.messages : input);

/** `{ type, fields }` of one LangChain message in either stored form, or `undefined`. */
function normalize(m: unknown): { type: string; fields: Record<string, unknown> } | undefined {
  if (!isRecord(m)) return undefined;
  if (m.lc === 1 && m.type === 'constructor' && Array.isArray(m.id) && isRecord(m.kwargs)) {
    const type = CLASSES[String(m.id[m.id.length - 1])];
    return type ? { type, fields: m.kwargs } : undefined;
  }
  if (typeof m.type === 'string' && TYPES.has(m.type) && isRecord(m.data))
    return { type: m.type, fields: m.data };
  return undefined;
}

/** True when every message is a serialized or stored LangChain message. */
export function looksLangChain(input: unknown): boolean {
  const messages = messagesOf(input);
  return Array.isArray(messages) && messages.length > 0 && messages.every((m) => normalize(m) !== undefined);
}

const BLOCKS =
  'text, image_url, image, file, thinking, redacted_thinking, reasoning, tool_use, tool_call, input_json_delta';

function unknownBlock(where: string, block: unknown): never {
  const type = isRecord(block) ? JSON.stringify(block.type) : typeName(block);
  throw new Error(`langchain: ${where}: unknown content block type ${type}; expected one of ${BLOCKS}`);
}

/** An image block in any of LangChain's spellings, as image data or a remote reference. */
function imageBlock(
  block: Record<string, unknown>,
): { data: string; mediaType?: string } | { url: string } | undefined {
  if (block.type === 'image_url') {
    const url = isRecord(block.image_url) ? String(block.image_url.url ?? '') : String(block.image_url ?? '');
    return parseDataUrl(url) ?? { url };
  }
  // Standard blocks: { source_type: 'base64', data, mime_type } (v0.3) or { data | base64, mimeType } (v1).
  const mime = [block.mime_type, block.mimeType].find((v): v is string => typeof v === 'string');
  const data = [block.data, block.base64].find((v): v is string => typeof v === 'string');
  if (data !== undefined && block.source_type !== 'url')
    return parseDataUrl(data) ?? { data, mediaType: mime };
  if (typeof block.url === 'string') return parseDataUrl(block.url) ?? { url: block.url };
  // Anthropic-shaped { source: { type: 'base64', media_type, data } } passed through by @langchain/anthropic.
  if (isRecord(block.source) && block.source.type === 'base64' && typeof block.source.data === 'string')
    return {
      data: block.source.data,
      mediaType: typeof block.source.media_type === 'string' ? block.source.media_type : undefined,
    };
  return undefined;
}

/** Imports LangChain serialized or stored messages. */
export function importLangChain(input: unknown, options: ImportOptions = {}): ImportResult {
  const b = new PathBuilder('langchain');
  const messages = messagesOf(input);
  if (!Array.isArray(messages))
    throw new Error(
      `langchain: expected an array of messages or { messages: [...] }, found ${typeName(messages)}`,
    );
  const names = new CallNames();
  messages.forEach((m, i) => {
    const where = `messages[${i}]`;
    const n = normalize(m);
    if (!n)
      throw new Error(
        `langchain: ${where}: expected { lc: 1, type: 'constructor', id: [..., '<Kind>Message'], kwargs } or { type: 'human'|'ai'|'tool'|'system'|…, data }, found ${JSON.stringify(m).slice(0, 80)}`,
      );
    b.nextGroup();
    const f = n.fields;
    let type = n.type;
    if (type === 'chat' || type === 'generic') {
      const role = String(f.role ?? '');
      type =
        role === 'user'
          ? 'human'
          : role === 'assistant'
            ? 'ai'
            : role === 'system'
              ? 'system'
              : role === 'tool'
                ? 'tool'
                : 'chat';
    }
    switch (type) {
      case 'system':
      case 'developer':
        b.system(plainText(f.content, where));
        return;
      case 'human':
        return humanContent(f.content, where, b);
      case 'ai':
        return aiMessage(f, where, b, names);
      case 'tool':
      case 'function': {
        const callId = String(f.tool_call_id ?? (type === 'function' ? `${String(f.name ?? '')}-${i}` : ''));
        const item: NewItem = {
          kind: 'tool_result',
          author: 'machinery',
          callId,
          name: typeof f.name === 'string' && f.name !== '' ? f.name : names.get(callId),
          content: resultContent(f.content, where, b),
        };
        if (f.status === 'error') item.isError = true;
        b.push(item);
        return;
      }
      case 'remove':
        b.warn(
          `${where}: RemoveMessage (a LangGraph state edit, id ${String(f.id)}) is not a message; not imported`,
        );
        return;
      default:
        b.warn(`${where}: chat message with role ${JSON.stringify(f.role)} kept as context`);
        b.push({
          kind: 'context',
          author: 'surface',
          text: plainText(f.content, where),
          source: String(f.role),
        });
    }
  });
  return b.finish('langchain', options);
}

/** Text of content that may only hold text (system messages). */
function plainText(content: unknown, where: string): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    throw new Error(`langchain: ${where}: content must be a string or an array, found ${typeName(content)}`);
  return content
    .map((c, k) => {
      if (typeof c === 'string') return c;
      if (isRecord(c) && c.type === 'text') return String(c.text ?? '');
      return unknownBlock(`${where}.content[${k}]`, c);
    })
    .join('\n');
}

function humanContent(content: unknown, where: string, b: PathBuilder): void {
  if (typeof content === 'string') {
    if (content !== '') b.push({ kind: 'message', author: 'person', text: content });
    return;
  }
  if (!Array.isArray(content))
    throw new Error(`langchain: ${where}: content must be a string or an array, found ${typeName(content)}`);
  let text: string[] = [];
  const flush = (): void => {
    if (text.length > 0) b.push({ kind: 'message', author: 'person', text: text.join('\n') });
    text = [];
  };
  content.forEach((c, k) => {
    const at = `${where}.content[${k}]`;
    if (typeof c === 'string') return void text.push(c);
    if (!isRecord(c)) unknownBlock(at, c);
    if (c.type === 'text') return void (String(c.text ?? '') !== '' && text.push(String(c.text)));
    flush();
    if (c.type === 'image_url' || c.type === 'image') {
      const img = imageBlock(c);
      if (img && 'data' in img)
        b.push({ kind: 'image', author: 'person', ...imageFromBase64(img.data, img.mediaType, at, b) });
      else {
        b.warn(`${at}: image is a remote URL or a file id, not inline data; kept as context text`);
        b.push({
          kind: 'context',
          author: 'surface',
          text: `[image ${img && 'url' in img ? img.url : JSON.stringify(c.file_id ?? c.id ?? '')}]`,
          source: 'image',
        });
      }
    } else if (c.type === 'file' || c.type === 'document') {
      const name = String(c.filename ?? c.name ?? c.title ?? 'file');
      const text = c.source_type === 'text' && typeof c.text === 'string' ? c.text : undefined;
      if (text !== undefined) b.push({ kind: 'context', author: 'surface', text, source: name });
      else {
        b.warn(`${at}: ${c.type} block ${name} is not text; kept as a reference, its bytes are not imported`);
        b.push({
          kind: 'context',
          author: 'surface',
          text: `[file ${name} ${String(c.mime_type ?? c.mimeType ?? '')}]`.trim(),
          source: name,
        });
      }
    } else unknownBlock(at, c);
  });
  flush();
}

function aiMessage(f: Record<string, unknown>, where: string, b: PathBuilder, names: CallNames): void {
  const ak = isRecord(f.additional_kwargs) ? f.additional_kwargs : {};
  // Tool calls: LangChain's own list, else the OpenAI-shaped one older records keep in additional_kwargs.
  const calls: { id: string; name: string; input: unknown }[] = [];
  if (Array.isArray(f.tool_calls) && f.tool_calls.length > 0) {
    f.tool_calls.forEach((c, k) => {
      if (!isRecord(c))
        throw new Error(
          `langchain: ${where}.tool_calls[${k}]: expected { name, args, id }, found ${typeName(c)}`,
        );
      calls.push({ id: String(c.id ?? ''), name: String(c.name ?? ''), input: c.args ?? {} });
    });
  } else if (Array.isArray(ak.tool_calls)) {
    ak.tool_calls.forEach((c, k) => {
      const fn = isRecord(c) && isRecord(c.function) ? c.function : {};
      calls.push({
        id: isRecord(c) ? String(c.id ?? '') : '',
        name: String(fn.name ?? ''),
        input: parseArguments(fn.arguments, `${where}.additional_kwargs.tool_calls[${k}]`, b),
      });
    });
  }
  if (Array.isArray(f.invalid_tool_calls) && f.invalid_tool_calls.length > 0) {
    f.invalid_tool_calls.forEach((c, k) => {
      if (!isRecord(c)) return;
      b.warn(
        `${where}.invalid_tool_calls[${k}]: arguments of ${String(c.name)} did not parse (${String(c.error ?? 'no error given')}); kept as a string`,
      );
      calls.push({ id: String(c.id ?? ''), name: String(c.name ?? ''), input: c.args ?? '' });
    });
  }
  const known = new Set(calls.map((c) => c.id));
  // Reasoning some providers keep beside the content (OpenAI Responses summaries, DeepSeek reasoning_content).
  if (typeof ak.reasoning_content === 'string' && ak.reasoning_content !== '')
    b.push({ kind: 'reasoning', author: 'model', text: ak.reasoning_content });
  if (isRecord(ak.reasoning)) {
    const summary = Array.isArray(ak.reasoning.summary) ? ak.reasoning.summary : [];
    const text = summary
      .map((s) => (isRecord(s) && typeof s.text === 'string' ? s.text : ''))
      .filter(Boolean)
      .join('\n\n');
    const item: NewItem & { kind: 'reasoning' } = {
      kind: 'reasoning',
      author: 'model',
      text,
      provider: 'openai',
    };
    if (typeof ak.reasoning.encrypted_content === 'string') item.encrypted = ak.reasoning.encrypted_content;
    b.push(item);
  }
  const content = f.content;
  if (typeof content === 'string') {
    if (content !== '') b.push({ kind: 'message', author: 'model', text: content });
  } else if (Array.isArray(content)) {
    content.forEach((c, k) => {
      const at = `${where}.content[${k}]`;
      if (typeof c === 'string')
        return void (c !== '' && b.push({ kind: 'message', author: 'model', text: c }));
      if (!isRecord(c)) unknownBlock(at, c);
      switch (c.type) {
        case 'text':
          if (String(c.text ?? '') !== '') b.push({ kind: 'message', author: 'model', text: String(c.text) });
          return;
        case 'thinking': {
          const item: NewItem & { kind: 'reasoning' } = {
            kind: 'reasoning',
            author: 'model',
            text: String(c.thinking ?? ''),
            provider: 'anthropic',
          };
          if (typeof c.signature === 'string' && c.signature !== '') item.signature = c.signature;
          b.push(item);
          return;
        }
        case 'redacted_thinking':
          b.push({
            kind: 'reasoning',
            author: 'model',
            text: '',
            provider: 'anthropic',
            encrypted: String(c.data ?? ''),
          });
          return;
        case 'reasoning':
          b.push({ kind: 'reasoning', author: 'model', text: String(c.reasoning ?? c.text ?? '') });
          return;
        case 'tool_use':
        case 'tool_call':
          // @langchain/anthropic keeps tool_use blocks in content and the same calls in tool_calls: one item each.
          if (!known.has(String(c.id ?? ''))) {
            calls.push({
              id: String(c.id ?? ''),
              name: String(c.name ?? ''),
              input: c.input ?? c.args ?? {},
            });
            known.add(String(c.id ?? ''));
          }
          return;
        case 'input_json_delta':
          return; // a streaming fragment of a tool_use input that tool_calls holds whole
        default:
          unknownBlock(at, c);
      }
    });
  } else if (content !== undefined && content !== null) {
    throw new Error(`langchain: ${where}: content must be a string or an array, found ${typeName(content)}`);
  }
  for (const c of calls) {
    names.set(c.id, c.name);
    b.push({ kind: 'tool_call', author: 'model', callId: c.id, name: c.name, input: c.input });
  }
}

function resultContent(content: unknown, where: string, b: PathBuilder): ContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [{ type: 'text', text: JSON.stringify(content ?? null) }];
  return content.map((c, k): ContentPart => {
    const at = `${where}.content[${k}]`;
    if (typeof c === 'string') return { type: 'text', text: c };
    if (!isRecord(c)) unknownBlock(at, c);
    if (c.type === 'text') return { type: 'text', text: String(c.text ?? '') };
    if (c.type === 'image_url' || c.type === 'image') {
      const img = imageBlock(c);
      if (img && 'data' in img) return { type: 'image', ...imageFromBase64(img.data, img.mediaType, at, b) };
      return { type: 'text', text: `[image ${img && 'url' in img ? img.url : ''}]` };
    }
    return unknownBlock(at, c);
  });
}
