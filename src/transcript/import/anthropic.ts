/**
 * Anthropic Messages format: `{ system?, messages }` or a bare messages array, as sent to
 * `POST /v1/messages`. Content blocks: text, image (base64), tool_use, tool_result (string or nested
 * text/image content, `is_error`), thinking (with signature), redacted_thinking, document.
 * The block conversion is shared with the Claude Code importer, whose `message` fields use this shape.
 */
import type { ContentPart, NewItem } from '../items.js';
import {
  CallNames,
  PathBuilder,
  imageFromBase64,
  isRecord,
  typeName,
  unknownPartError,
  type ImportOptions,
  type ImportResult,
} from './build.js';

/** How a user text block is to be filed; the Claude Code importer recognises injected content. */
export type TextClassifier = (text: string) => NewItem[];

const personText: TextClassifier = (text) =>
  text === '' ? [] : [{ kind: 'message', author: 'person', text }];

/** Result blocks other than text and image that are kept as their JSON text. */
const RESULT_PASSTHROUGH: ReadonlySet<string> = new Set([
  'search_result',
  'web_search_result',
  'web_fetch_result',
  'document',
  'tool_reference',
  'code_execution_result',
  'code_execution_output',
  'bash_code_execution_result',
  'bash_code_execution_output',
  'text_editor_code_execution_result',
  'tool_search_tool_search_result',
]);

/** Converts Anthropic tool_result content (string or blocks) to content parts. */
export function toolResultContent(content: unknown, where: string, b: PathBuilder): ContentPart[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [{ type: 'text', text: JSON.stringify(content) }];
  const parts: ContentPart[] = [];
  content.forEach((block, k) => {
    if (isRecord(block) && block.type === 'text' && typeof block.text === 'string') {
      parts.push({ type: 'text', text: block.text });
    } else if (
      isRecord(block) &&
      block.type === 'image' &&
      isRecord(block.source) &&
      block.source.type === 'base64'
    ) {
      const image = imageFromBase64(String(block.source.data ?? ''), str(block.source.media_type), where, b);
      parts.push({ type: 'image', ...image });
    } else if (isRecord(block) && RESULT_PASSTHROUGH.has(String(block.type))) {
      // Search results, tool references, server tool outputs: kept readable as their JSON.
      parts.push({ type: 'text', text: JSON.stringify(block) });
    } else {
      throw unknownPartError(b.format, `${where} content[${k}]`, block, [
        'text',
        'image',
        ...RESULT_PASSTHROUGH,
      ]);
    }
  });
  return parts;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Pushes the items of one user message's content. */
export function userContent(
  content: unknown,
  where: string,
  b: PathBuilder,
  names: CallNames,
  time: string | undefined,
  classify: TextClassifier = personText,
  files?: (callId: string) => string[] | undefined,
): void {
  if (typeof content === 'string') {
    for (const item of classify(content)) b.push(item, time);
    return;
  }
  if (!Array.isArray(content)) {
    b.warn(
      `${where}: expected user content as a string or an array of blocks, found ${typeName(content)}; skipped`,
    );
    return;
  }
  content.forEach((block, k) => {
    const at = `${where} block ${k}`;
    if (!isRecord(block)) throw unknownPartError(b.format, at, block, USER_BLOCKS);
    switch (block.type) {
      case 'text':
        for (const item of classify(String(block.text ?? ''))) b.push(item, time);
        return;
      case 'search_result':
        b.push(
          { kind: 'context', author: 'surface', text: JSON.stringify(block), source: 'search_result' },
          time,
        );
        return;
      case 'image': {
        const source = isRecord(block.source) ? block.source : {};
        if (source.type === 'base64') {
          const image = imageFromBase64(String(source.data ?? ''), str(source.media_type), at, b);
          b.push({ kind: 'image', author: 'person', ...image }, time);
        } else {
          b.warn(
            `${at}: image with source type ${String(source.type)} has no inline data; kept as context text`,
          );
          b.push(
            {
              kind: 'context',
              author: 'surface',
              text: `[image ${String(source.url ?? source.file_id ?? '')}]`,
              source: 'image',
            },
            time,
          );
        }
        return;
      }
      case 'tool_result': {
        const item = toolResultItem(block, at, b, names);
        const touched = files?.(item.callId);
        if (touched && touched.length > 0) item.files = touched;
        b.push(item, time);
        return;
      }
      case 'document': {
        const source = isRecord(block.source) ? block.source : {};
        const text =
          source.type === 'text'
            ? String(source.data ?? '')
            : `[document ${String(source.media_type ?? source.type ?? '')}]`;
        b.push({ kind: 'context', author: 'surface', text, source: str(block.title) ?? 'document' }, time);
        return;
      }
      default:
        throw unknownPartError(b.format, at, block, USER_BLOCKS);
    }
  });
}

/** Pushes the items of one assistant message's content. */
export function assistantContent(
  content: unknown,
  where: string,
  b: PathBuilder,
  names: CallNames,
  time: string | undefined,
): void {
  if (typeof content === 'string') {
    if (content !== '') b.push({ kind: 'message', author: 'model', text: content }, time);
    return;
  }
  if (!Array.isArray(content)) {
    b.warn(
      `${where}: expected assistant content as a string or an array of blocks, found ${typeName(content)}; skipped`,
    );
    return;
  }
  content.forEach((block, k) => {
    const at = `${where} block ${k}`;
    if (!isRecord(block)) throw unknownPartError(b.format, at, block, ASSISTANT_BLOCKS);
    // Server-side tools (web search, code execution, MCP…): the provider ran them, so call and result
    // both sit in the assistant turn. New server tools keep this naming.
    const type = String(block.type);
    if (type.endsWith('_tool_result') && type !== 'tool_result')
      return serverResult(block, at, b, names, time);
    switch (block.type) {
      case 'text':
        // An empty text block next to tool calls carries nothing a reader or a provider needs.
        if (String(block.text ?? '') !== '')
          b.push({ kind: 'message', author: 'model', text: String(block.text) }, time);
        return;
      case 'thinking': {
        const item: NewItem = {
          kind: 'reasoning',
          author: 'model',
          text: String(block.thinking ?? ''),
          provider: 'anthropic',
        };
        if (typeof block.signature === 'string' && block.signature !== '') item.signature = block.signature;
        b.push(item, time);
        return;
      }
      case 'redacted_thinking':
        b.push(
          {
            kind: 'reasoning',
            author: 'model',
            text: '',
            provider: 'anthropic',
            encrypted: String(block.data ?? ''),
          },
          time,
        );
        return;
      case 'tool_use':
      case 'server_tool_use':
      case 'mcp_tool_use': {
        const callId = String(block.id ?? '');
        const name = String(block.name ?? '');
        names.set(callId, name);
        b.push({ kind: 'tool_call', author: 'model', callId, name, input: block.input ?? {} }, time);
        return;
      }
      default:
        throw unknownPartError(b.format, at, block, ASSISTANT_BLOCKS);
    }
  });
}

const USER_BLOCKS = ['text', 'image', 'tool_result', 'document', 'search_result'];
const ASSISTANT_BLOCKS = [
  'text',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'server_tool_use',
  'mcp_tool_use',
  '<server tool>_tool_result',
];

function serverResult(
  block: Record<string, unknown>,
  at: string,
  b: PathBuilder,
  names: CallNames,
  time: string | undefined,
): void {
  b.push(toolResultItem(block, at, b, names), time);
}

/** A `tool_result` block (the person's, or a server tool's) as an item. */
function toolResultItem(
  block: Record<string, unknown>,
  at: string,
  b: PathBuilder,
  names: CallNames,
): NewItem & { kind: 'tool_result' } {
  const callId = String(block.tool_use_id ?? '');
  const item: NewItem & { kind: 'tool_result' } = {
    kind: 'tool_result',
    author: 'machinery',
    callId,
    name: names.get(callId),
    content: toolResultContent(block.content, at, b),
  };
  if (block.is_error === true) item.isError = true;
  return item;
}

/** System prompt as a string or an array of text blocks (with cache_control) → plain text. */
export function systemText(system: unknown): string {
  if (typeof system === 'string') return system;
  if (Array.isArray(system)) {
    return system
      .map((s) => (isRecord(s) && typeof s.text === 'string' ? s.text : ''))
      .filter((s) => s !== '')
      .join('\n\n');
  }
  return '';
}

/** True when `input` looks like an Anthropic Messages request or array. */
export function looksAnthropic(input: unknown): boolean {
  const messages = isRecord(input) ? input.messages : input;
  if (!Array.isArray(messages) || messages.length === 0) return false;
  if (
    isRecord(input) &&
    input.system !== undefined &&
    typeof input.system !== 'string' &&
    !Array.isArray(input.system)
  ) {
    return false;
  }
  return messages.every(
    (m) =>
      isRecord(m) &&
      (m.role === 'user' || m.role === 'assistant') &&
      (typeof m.content === 'string' || Array.isArray(m.content)) &&
      m.tool_calls === undefined &&
      (!Array.isArray(m.content) ||
        m.content.every(
          (c) =>
            isRecord(c) && typeof c.type === 'string' && c.type !== 'image_url' && c.type !== 'input_text',
        )),
  );
}

/** Imports an Anthropic Messages array or `{ system?, messages }` object. */
export function importAnthropic(input: unknown, options: ImportOptions = {}): ImportResult {
  const b = new PathBuilder('anthropic');
  const messages = isRecord(input) ? input.messages : input;
  if (!Array.isArray(messages)) {
    throw new Error(
      `anthropic: expected a messages array or { system?, messages: [...] }, found ${typeName(messages)}`,
    );
  }
  if (isRecord(input)) b.system(systemText(input.system));
  const names = new CallNames();
  messages.forEach((m, i) => {
    const where = `messages[${i}]`;
    if (!isRecord(m)) throw new Error(`anthropic: ${where}: expected a message object, found ${typeName(m)}`);
    b.nextGroup();
    if (m.role === 'user') userContent(m.content, where, b, names, undefined);
    else if (m.role === 'assistant') assistantContent(m.content, where, b, names, undefined);
    else
      throw new Error(
        `anthropic: ${where}: expected role "user" or "assistant", found ${JSON.stringify(m.role)}`,
      );
  });
  return b.finish('anthropic', options);
}
