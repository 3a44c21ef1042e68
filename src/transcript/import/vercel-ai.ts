/**
 * Vercel AI SDK messages (`ModelMessage[]` of the `ai` package, v5 and v6; v4's `CoreMessage` reads
 * the same with `args` / `result` in place of `input` / `output`): a bare array or `{ system?, messages }`
 * as passed to `generateText` (`system` a string, a system message or an array of them). Roles: system (a string), user (text / image / file parts), assistant
 * (text, file, reasoning, tool-call, provider-executed tool-result, tool-approval-request parts) and
 * tool (tool-result and tool-approval-response parts). A part type not listed here is an error.
 */
import { decodeBase64 } from '../image-size.js';
import type { ContentPart, NewItem } from '../items.js';
import {
  CallNames,
  PathBuilder,
  imageFromBase64,
  isRecord,
  parseDataUrl,
  typeName,
  type ImportOptions,
  type ImportResult,
} from './build.js';

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);
/** Part types only the AI SDK uses (Chat Completions and Anthropic spell theirs differently). */
const SDK_PARTS = new Set([
  'tool-call',
  'tool-result',
  'reasoning',
  'tool-approval-request',
  'tool-approval-response',
]);

/** Bytes → base64 with `btoa` (edge runtimes have no Buffer); chunks keep the argument list short. */
function base64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** The `system` option of generateText (v6: a string, a SystemModelMessage or an array of them) as texts. */
function systemTexts(system: unknown): string[] | undefined {
  if (typeof system === 'string') return [system];
  const list = Array.isArray(system) ? system : [system];
  const texts = list.map((m) =>
    isRecord(m) && m.role === 'system' && typeof m.content === 'string' ? m.content : undefined,
  );
  return texts.every((t): t is string => t !== undefined) ? texts : undefined;
}

const messagesOf = (input: unknown): unknown => (isRecord(input) ? input.messages : input);

/** True when `input` is a ModelMessage array (or `{ messages }`) that uses a part only the AI SDK has. */
export function looksVercelAI(input: unknown): boolean {
  const messages = messagesOf(input);
  if (!Array.isArray(messages) || messages.length === 0) return false;
  if (isRecord(input) && input.system !== undefined && systemTexts(input.system) === undefined) return false;
  if (!messages.every((m) => isRecord(m) && typeof m.role === 'string' && ROLES.has(m.role))) return false;
  return messages.some(
    (m) =>
      isRecord(m) &&
      Array.isArray(m.content) &&
      m.content.some(
        (p) =>
          isRecord(p) &&
          (SDK_PARTS.has(String(p.type)) ||
            (p.type === 'image' && p.image !== undefined) ||
            (p.type === 'file' && p.data !== undefined && typeof p.mediaType === 'string')),
      ),
  );
}

/** Base64 of DataContent: a base64 or data-URL string, bytes (Uint8Array, Buffer, ArrayBuffer) or a JSON'd Buffer. */
function dataOf(v: unknown): { data: string; mediaType?: string } | { url: string } | undefined {
  if (typeof v === 'string') {
    const d = parseDataUrl(v);
    if (d) return d;
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return { url: v };
    return { data: v };
  }
  if (v instanceof URL) return { url: v.href };
  if (v instanceof Uint8Array) return { data: base64(v) };
  if (v instanceof ArrayBuffer) return { data: base64(new Uint8Array(v)) };
  // Buffer.toJSON(): what a Buffer becomes when the messages were written with JSON.stringify.
  if (
    isRecord(v) &&
    v.type === 'Buffer' &&
    Array.isArray(v.data) &&
    v.data.every((n) => typeof n === 'number')
  )
    return { data: base64(Uint8Array.from(v.data as number[])) };
  return undefined;
}

function unknownPart(where: string, part: unknown, expected: string): never {
  const type = isRecord(part) ? JSON.stringify(part.type) : typeName(part);
  throw new Error(`vercel-ai: ${where}: unknown content part type ${type}; expected one of ${expected}`);
}

/** An image or file part of a user or assistant message. */
function mediaPart(
  part: Record<string, unknown>,
  where: string,
  b: PathBuilder,
  author: 'person' | 'surface',
): void {
  const raw = part.type === 'image' ? part.image : part.data;
  const declared = typeof part.mediaType === 'string' ? part.mediaType : undefined;
  const d = dataOf(raw);
  if (d === undefined)
    throw new Error(
      `vercel-ai: ${where}: ${String(part.type)} part data must be base64, a data URL, a URL or bytes, found ${typeName(raw)}`,
    );
  const name = typeof part.filename === 'string' ? ` ${part.filename}` : '';
  if ('url' in d) {
    b.warn(`${where}: ${String(part.type)} part is a URL, not inline data; kept as context text`);
    b.push({
      kind: 'context',
      author: 'surface',
      text: `[${String(part.type)}${name} ${d.url}]`,
      source: String(part.type),
    });
    return;
  }
  const mediaType = declared ?? d.mediaType;
  if (part.type === 'image' || (mediaType ?? '').startsWith('image/')) {
    b.push({
      kind: 'image',
      author: author === 'surface' ? 'surface' : 'person',
      ...imageFromBase64(d.data, mediaType, where, b),
    });
    return;
  }
  if ((mediaType ?? '').startsWith('text/')) {
    b.push({
      kind: 'context',
      author: 'surface',
      text: new TextDecoder().decode(decodeBase64(d.data)),
      source: name.trim() || mediaType!,
    });
    return;
  }
  b.warn(
    `${where}: file${name} (${mediaType}) is not text or an image; kept as a reference, its bytes are not imported`,
  );
  b.push({
    kind: 'context',
    author: 'surface',
    text: `[file${name} ${mediaType}]`,
    source: name.trim() || 'file',
  });
}

const CONTENT_OUTPUT =
  'text, media, image-data, image-url, image-file-id, file-data, file-url, file-id, custom';

/** A tool result's `output` (v5/v6) or `result` (v4) as content parts and an error flag. */
function resultOutput(
  part: Record<string, unknown>,
  where: string,
  b: PathBuilder,
): { content: ContentPart[]; isError: boolean } {
  if (part.output === undefined && 'result' in part) {
    // v4 CoreMessage: `result` is any JSON value, `isError` a flag.
    const r = part.result;
    return {
      content: [{ type: 'text', text: typeof r === 'string' ? r : JSON.stringify(r ?? null) }],
      isError: part.isError === true,
    };
  }
  const out = part.output;
  if (!isRecord(out))
    throw new Error(
      `vercel-ai: ${where}: tool-result output must be an object { type, value }, found ${typeName(out)}`,
    );
  const json = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v ?? null));
  switch (out.type) {
    case 'text':
      return { content: [{ type: 'text', text: String(out.value ?? '') }], isError: false };
    case 'json':
      return { content: [{ type: 'text', text: json(out.value) }], isError: false };
    case 'error-text':
      return { content: [{ type: 'text', text: String(out.value ?? '') }], isError: true };
    case 'error-json':
      return { content: [{ type: 'text', text: json(out.value) }], isError: true };
    case 'execution-denied': {
      const reason = typeof out.reason === 'string' ? `: ${out.reason}` : '';
      return { content: [{ type: 'text', text: `[execution denied${reason}]` }], isError: true };
    }
    case 'content': {
      if (!Array.isArray(out.value))
        throw new Error(
          `vercel-ai: ${where}: output of type "content" must hold an array, found ${typeName(out.value)}`,
        );
      const content: ContentPart[] = [];
      out.value.forEach((p, k) => {
        const at = `${where}.output.value[${k}]`;
        if (!isRecord(p)) unknownPart(at, p, CONTENT_OUTPUT);
        switch (p.type) {
          case 'text':
            content.push({ type: 'text', text: String(p.text ?? '') });
            return;
          case 'media':
          case 'image-data':
          case 'file-data': {
            const mediaType = String(p.mediaType ?? '');
            if (mediaType.startsWith('image/')) {
              content.push({ type: 'image', ...imageFromBase64(String(p.data ?? ''), mediaType, at, b) });
            } else {
              b.warn(
                `${at}: ${p.type} of ${mediaType} is not an image; kept as a reference, its bytes are not imported`,
              );
              const name = typeof p.filename === 'string' ? ` ${p.filename}` : '';
              content.push({ type: 'text', text: `[file${name} ${mediaType}]` });
            }
            return;
          }
          case 'image-url':
          case 'file-url':
            content.push({
              type: 'text',
              text: `[${p.type === 'image-url' ? 'image' : 'file'} ${String(p.url ?? '')}]`,
            });
            return;
          case 'image-file-id':
          case 'file-id':
            content.push({
              type: 'text',
              text: `[${p.type === 'image-file-id' ? 'image' : 'file'} id ${json(p.fileId)}]`,
            });
            return;
          case 'custom':
            b.warn(`${at}: custom output part is provider-specific; kept as JSON text`);
            content.push({ type: 'text', text: JSON.stringify(p) });
            return;
          default:
            unknownPart(at, p, CONTENT_OUTPUT);
        }
      });
      return { content, isError: false };
    }
    default:
      throw new Error(
        `vercel-ai: ${where}: unknown tool-result output type ${JSON.stringify(out.type)}; expected text, json, error-text, error-json, execution-denied or content`,
      );
  }
}

/** Reasoning with the provider data an SDK provider stored in `providerOptions` (signatures, encrypted content). */
function reasoningItem(part: Record<string, unknown>): NewItem {
  const item: NewItem & { kind: 'reasoning' } = {
    kind: 'reasoning',
    author: 'model',
    text: String(part.text ?? ''),
  };
  const po = isRecord(part.providerOptions) ? part.providerOptions : {};
  const anthropic = isRecord(po.anthropic) ? po.anthropic : undefined;
  const openai = isRecord(po.openai) ? po.openai : undefined;
  if (anthropic) {
    item.provider = 'anthropic';
    if (typeof anthropic.signature === 'string') item.signature = anthropic.signature;
    if (typeof anthropic.redactedData === 'string') item.encrypted = anthropic.redactedData;
  } else if (openai) {
    item.provider = 'openai';
    if (typeof openai.reasoningEncryptedContent === 'string')
      item.encrypted = openai.reasoningEncryptedContent;
  }
  return item;
}

function toolResult(part: Record<string, unknown>, where: string, b: PathBuilder, names: CallNames): void {
  const callId = String(part.toolCallId ?? '');
  const { content, isError } = resultOutput(part, where, b);
  const item: NewItem = {
    kind: 'tool_result',
    author: 'machinery',
    callId,
    name: typeof part.toolName === 'string' ? part.toolName : names.get(callId),
    content,
  };
  if (isError) item.isError = true;
  b.push(item);
}

/** Imports a Vercel AI SDK `ModelMessage[]` (or `{ system?, messages }`). */
export function importVercelAI(input: unknown, options: ImportOptions = {}): ImportResult {
  const b = new PathBuilder('vercel-ai');
  const messages = messagesOf(input);
  if (!Array.isArray(messages))
    throw new Error(
      `vercel-ai: expected a ModelMessage array or { system?, messages: [...] }, found ${typeName(messages)}`,
    );
  if (isRecord(input) && input.system !== undefined) {
    const texts = systemTexts(input.system);
    if (texts === undefined)
      throw new Error(
        `vercel-ai: system must be a string, a system message or an array of them, found ${typeName(input.system)}`,
      );
    for (const t of texts) b.system(t);
  }
  const names = new CallNames();
  messages.forEach((m, i) => {
    const where = `messages[${i}]`;
    if (!isRecord(m)) throw new Error(`vercel-ai: ${where}: expected a message object, found ${typeName(m)}`);
    b.nextGroup();
    const content = m.content;
    if (m.role === 'system') {
      if (typeof content !== 'string')
        throw new Error(`vercel-ai: ${where}: system content must be a string, found ${typeName(content)}`);
      b.system(content);
      return;
    }
    if (typeof content === 'string') {
      if (m.role === 'tool')
        throw new Error(`vercel-ai: ${where}: tool content must be an array of parts, found string`);
      if (content !== '')
        b.push({ kind: 'message', author: m.role === 'user' ? 'person' : 'model', text: content });
      return;
    }
    if (!Array.isArray(content))
      throw new Error(
        `vercel-ai: ${where}: content must be a string or an array of parts, found ${typeName(content)}`,
      );
    if (m.role === 'user') userParts(content, where, b);
    else if (m.role === 'assistant') assistantParts(content, where, b, names);
    else if (m.role === 'tool') toolParts(content, where, b, names);
    else
      throw new Error(
        `vercel-ai: ${where}: expected role system|user|assistant|tool, found ${JSON.stringify(m.role)}`,
      );
  });
  return b.finish('vercel-ai', options);
}

function userParts(content: unknown[], where: string, b: PathBuilder): void {
  // Text parts of one message stay one message; images and files keep their place around it.
  let text: string[] = [];
  const flush = (): void => {
    if (text.length > 0) b.push({ kind: 'message', author: 'person', text: text.join('\n') });
    text = [];
  };
  content.forEach((part, k) => {
    const at = `${where}.content[${k}]`;
    if (!isRecord(part)) unknownPart(at, part, 'text, image, file');
    if (part.type === 'text') {
      if (String(part.text ?? '') !== '') text.push(String(part.text));
    } else if (part.type === 'image' || part.type === 'file') {
      flush();
      mediaPart(part, at, b, 'person');
    } else unknownPart(at, part, 'text, image, file');
  });
  flush();
}

function assistantParts(content: unknown[], where: string, b: PathBuilder, names: CallNames): void {
  const expected = 'text, file, reasoning, tool-call, tool-result, tool-approval-request';
  content.forEach((part, k) => {
    const at = `${where}.content[${k}]`;
    if (!isRecord(part)) unknownPart(at, part, expected);
    switch (part.type) {
      case 'text':
        if (String(part.text ?? '') !== '')
          b.push({ kind: 'message', author: 'model', text: String(part.text) });
        return;
      case 'reasoning':
        b.push(reasoningItem(part));
        return;
      case 'file':
        mediaPart(part, at, b, 'surface');
        return;
      case 'tool-call': {
        const callId = String(part.toolCallId ?? '');
        const name = String(part.toolName ?? '');
        names.set(callId, name);
        // v4 named the arguments `args`.
        const input = 'input' in part ? part.input : part.args;
        b.push({ kind: 'tool_call', author: 'model', callId, name, input: input ?? {} });
        return;
      }
      case 'tool-result':
        // Provider-executed tools (web search…): the provider ran them, so the result sits in the assistant turn.
        toolResult(part, at, b, names);
        return;
      case 'tool-approval-request':
        b.warn(
          `${at}: tool-approval-request for call ${String(part.toolCallId)} is SDK bookkeeping, not sent to a model; not imported`,
        );
        return;
      default:
        unknownPart(at, part, expected);
    }
  });
}

function toolParts(content: unknown[], where: string, b: PathBuilder, names: CallNames): void {
  content.forEach((part, k) => {
    const at = `${where}.content[${k}]`;
    if (!isRecord(part)) unknownPart(at, part, 'tool-result, tool-approval-response');
    if (part.type === 'tool-result') toolResult(part, at, b, names);
    else if (part.type === 'tool-approval-response')
      b.warn(
        `${at}: tool-approval-response (${part.approved === true ? 'approved' : 'denied'}) is SDK bookkeeping, not sent to a model; not imported`,
      );
    else unknownPart(at, part, 'tool-result, tool-approval-response');
  });
}
