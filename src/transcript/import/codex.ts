/**
 * Codex CLI rollout JSONL (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`).
 *
 * Each line is `{ timestamp, type, payload }`. `response_item` lines are what the model saw and
 * said (message, reasoning with `encrypted_content`, function_call / function_call_output,
 * custom_tool_call / custom_tool_call_output, local_shell_call); they are the record. `event_msg`
 * lines repeat the same conversation for the UI (user_message, agent_message, token_count…) and
 * `turn_context` holds per-turn settings, so both are skipped. `compacted` marks a compaction and
 * carries its summary. `session_meta` may carry the base instructions, which become `system`.
 */
import type { ContentPart, NewItem } from '../items.js';
import {
  CallNames,
  PathBuilder,
  imageFromBase64,
  isRecord,
  parseArguments,
  parseDataUrl,
  parseLines,
  unknownPartError,
  type ImportOptions,
  type ImportResult,
} from './build.js';

const LINE_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);

/** Text blocks Codex injects as user messages; the person did not type these. */
const INJECTED: readonly [RegExp, string][] = [
  [/^<user_instructions>/, 'user_instructions'],
  [/^# AGENTS\.md instructions/, 'agents.md'],
  [/^<environment_context>/, 'environment_context'],
  [/^<user_shell_command>/, 'user_shell_command'],
  [/^<turn_aborted>/, 'turn_aborted'],
];

/**
 * The Codex IDE extension prefixes a typed request with the editor's state: `# Context from my IDE
 * setup:` then `## Active file: …`, `## Open tabs:` …, and the request itself after `## My request
 * for Codex:`. The client attached the first part (surface); the person typed the second.
 */
const IDE_CONTEXT = /^# Context from my IDE setup:/;
const IDE_REQUEST = /^## My request for Codex:[ \t]*\n?/m;

export function splitIdeContext(text: string): { context?: string; request?: string } {
  const t = text.trim();
  if (!IDE_CONTEXT.test(t)) return { request: text };
  const m = IDE_REQUEST.exec(t);
  if (!m) return { context: t };
  const request = t.slice(m.index + m[0].length).trim();
  return { context: t.slice(0, m.index).trimEnd(), ...(request ? { request } : {}) };
}

export function looksCodex(values: readonly unknown[]): boolean {
  return values.some(
    (v) => isRecord(v) && typeof v.type === 'string' && LINE_TYPES.has(v.type) && isRecord(v.payload),
  );
}

/** Codex tool output: a string (often JSON `{output, metadata: {exit_code}}`) or content items. */
function outputContent(
  output: unknown,
  where: string,
  b: PathBuilder,
): { content: ContentPart[]; isError: boolean } {
  if (typeof output === 'string') {
    let isError = false;
    try {
      const parsed = JSON.parse(output) as unknown;
      if (isRecord(parsed) && isRecord(parsed.metadata) && typeof parsed.metadata.exit_code === 'number') {
        isError = parsed.metadata.exit_code !== 0;
      }
    } catch {
      // Plain text output: nothing more to learn from it.
    }
    // The string is what the model was sent; it stays verbatim.
    return { content: [{ type: 'text', text: output }], isError };
  }
  if (isRecord(output) && (Array.isArray(output.content) || typeof output.content === 'string')) {
    const inner = outputContent(output.content, where, b);
    return { content: inner.content, isError: output.success === false || inner.isError };
  }
  if (Array.isArray(output)) {
    const content: ContentPart[] = [];
    output.forEach((part, k) => {
      if (
        isRecord(part) &&
        (part.type === 'input_text' || part.type === 'output_text') &&
        typeof part.text === 'string'
      ) {
        content.push({ type: 'text', text: part.text });
      } else if (isRecord(part) && part.type === 'input_image' && typeof part.image_url === 'string') {
        const data = parseDataUrl(part.image_url);
        if (data) content.push({ type: 'image', ...imageFromBase64(data.data, data.mediaType, where, b) });
        else content.push({ type: 'text', text: `[image ${part.image_url}]` });
      } else {
        throw unknownPartError('codex', `${where} output[${k}]`, part, [
          'input_text',
          'output_text',
          'input_image',
        ]);
      }
    });
    return { content, isError: false };
  }
  return { content: [{ type: 'text', text: JSON.stringify(output ?? '') }], isError: false };
}

const MESSAGE_PARTS = ['input_text', 'output_text', 'input_image', 'refusal'];

function messageItems(
  p: Record<string, unknown>,
  where: string,
  b: PathBuilder,
  time: string | undefined,
): void {
  const role = p.role;
  const parts = Array.isArray(p.content) ? p.content : [];
  for (const [k, part] of parts.entries()) {
    const at = `${where} content[${k}]`;
    if (!isRecord(part)) throw unknownPartError('codex', at, part, MESSAGE_PARTS);
    const text =
      typeof part.text === 'string'
        ? part.text
        : part.type === 'refusal' && typeof part.refusal === 'string'
          ? part.refusal
          : undefined;
    if (part.type === 'input_image' && typeof part.image_url === 'string') {
      const data = parseDataUrl(part.image_url);
      if (data)
        b.push(
          { kind: 'image', author: 'person', ...imageFromBase64(data.data, data.mediaType, where, b) },
          time,
        );
      else
        b.push(
          { kind: 'context', author: 'surface', text: `[image ${part.image_url}]`, source: 'image' },
          time,
        );
      continue;
    }
    if (text === undefined || !MESSAGE_PARTS.includes(String(part.type)))
      throw unknownPartError('codex', at, part, MESSAGE_PARTS);
    if (role === 'assistant') {
      if (text !== '') b.push({ kind: 'message', author: 'model', text }, time);
    } else if (role === 'user') {
      const t = text.trim();
      const hit = INJECTED.find(([pattern]) => pattern.test(t));
      if (hit) b.push({ kind: 'context', author: 'surface', text, source: hit[1] }, time);
      else if (IDE_CONTEXT.test(t)) {
        const { context, request } = splitIdeContext(t);
        if (context)
          b.push({ kind: 'context', author: 'surface', text: context, source: 'ide-context' }, time);
        if (request) b.push({ kind: 'message', author: 'person', text: request }, time);
      } else if (t !== '') b.push({ kind: 'message', author: 'person', text }, time);
    } else {
      // developer / system messages inside the history: per-request instructions the harness added.
      b.push({ kind: 'context', author: 'surface', text, source: String(role) }, time);
    }
  }
}

/** Imports a Codex CLI rollout JSONL text. */
export function importCodex(text: string, options: ImportOptions = {}): ImportResult {
  const b = new PathBuilder('codex');
  const names = new CallNames();
  let seen = 0;
  for (const { line, value } of parseLines(text, 'codex', b)) {
    const where = `line ${line}`;
    if (!isRecord(value) || typeof value.type !== 'string' || !isRecord(value.payload)) {
      b.warn(
        `${where}: expected { timestamp, type, payload }, found ${JSON.stringify(value).slice(0, 60)}; skipped`,
      );
      continue;
    }
    seen++;
    const p = value.payload;
    const time = typeof value.timestamp === 'string' ? value.timestamp : undefined;
    b.nextGroup();
    switch (value.type) {
      case 'session_meta': {
        const base = isRecord(p.base_instructions) ? p.base_instructions.text : p.instructions;
        if (typeof base === 'string') b.system(base);
        break;
      }
      case 'compacted': {
        let summary = typeof p.message === 'string' ? p.message : '';
        // Newer rollouts may carry the replacement history instead of (or beside) a message.
        if (summary === '' && Array.isArray(p.replacement_history)) {
          summary = p.replacement_history
            .flatMap((h) => (isRecord(h) && Array.isArray(h.content) ? h.content : []))
            .map((c) => (isRecord(c) && typeof c.text === 'string' ? c.text : ''))
            .filter((t) => t !== '')
            .join('\n\n');
          b.warn(`${where}: compacted line has no message; summary taken from its replacement_history`);
        }
        b.push({ kind: 'summary', author: 'machinery', text: summary }, time);
        break;
      }
      case 'response_item':
        responseItem(p, where, b, names, time);
        break;
      default:
        // event_msg and turn_context: UI echoes and settings, not part of what the model saw.
        break;
    }
  }
  if (seen === 0) throw new Error('codex: no line of the form { timestamp, type, payload } was found');
  return b.finish('codex', options);
}

function responseItem(
  p: Record<string, unknown>,
  where: string,
  b: PathBuilder,
  names: CallNames,
  time: string | undefined,
): void {
  switch (p.type) {
    case 'message':
      messageItems(p, where, b, time);
      return;
    case 'reasoning': {
      const summary = Array.isArray(p.summary) ? p.summary : [];
      const content = Array.isArray(p.content) ? p.content : [];
      const text = [...summary, ...content]
        .map((s) => (isRecord(s) && typeof s.text === 'string' ? s.text : ''))
        .filter((s) => s !== '')
        .join('\n\n');
      const item: NewItem = { kind: 'reasoning', author: 'model', text, provider: 'openai' };
      if (typeof p.encrypted_content === 'string') item.encrypted = p.encrypted_content;
      b.push(item, time);
      return;
    }
    case 'function_call':
    case 'custom_tool_call': {
      const callId = String(p.call_id ?? p.id ?? '');
      const name = String(p.name ?? '');
      names.set(callId, name);
      // custom tools (apply_patch freeform) take raw text input, function tools take JSON arguments.
      const input = p.type === 'function_call' ? parseArguments(p.arguments, where, b) : (p.input ?? '');
      b.push({ kind: 'tool_call', author: 'model', callId, name, input }, time);
      return;
    }
    case 'local_shell_call': {
      const callId = String(p.call_id ?? p.id ?? '');
      names.set(callId, 'local_shell');
      b.push(
        { kind: 'tool_call', author: 'model', callId, name: 'local_shell', input: p.action ?? {} },
        time,
      );
      return;
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const callId = String(p.call_id ?? '');
      const { content, isError } = outputContent(p.output, where, b);
      const item: NewItem = {
        kind: 'tool_result',
        author: 'machinery',
        callId,
        name: names.get(callId),
        content,
      };
      if (isError) item.isError = true;
      b.push(item, time);
      return;
    }
    case 'ghost_snapshot':
      return; // Codex's own undo bookkeeping (a git commit id), never sent to the model.
    case 'web_search_call':
      // OpenAI runs the search on its side: the log keeps the query but not what the model read.
      b.warn(
        `${where}: web_search_call not imported (a search run on OpenAI's side; the log holds its query, not its results)`,
      );
      return;
    default:
      b.warn(`${where}: response_item of type ${JSON.stringify(p.type)} not imported`);
  }
}
