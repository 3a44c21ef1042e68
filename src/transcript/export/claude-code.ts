/**
 * A path (root → any item) as a Claude Code session JSONL: one `user` / `assistant` entry per item,
 * chained by `uuid` / `parentUuid`, content in Anthropic block shape. Written so that
 * `importClaudeCode` reads it back to the same content (kind, author, text, calls, results); what the
 * format cannot hold is said in `notes`, never dropped unseen.
 */
import type { ContentPart, Item } from '../items.js';

export interface ClaudeCodeExportOptions {
  /** `sessionId` of every entry (default `glyphfold-export`). */
  sessionId?: string;
  /** `cwd` of every entry (default `/`). */
  cwd?: string;
}

export interface TextExport {
  /** The exported document. */
  text: string;
  /** What the format could not carry as it was (one sentence each, naming the item). */
  notes: string[];
}

type Json = Record<string, unknown>;

function resultBlocks(parts: readonly ContentPart[]): Json[] {
  return parts.map((p) =>
    p.type === 'text'
      ? { type: 'text', text: p.text }
      : { type: 'image', source: { type: 'base64', media_type: p.mediaType, data: p.data } },
  );
}

/** The entry fields that are not the content: what `importClaudeCode` needs to follow the chain. */
function envelope(item: Item, parent: string | null, options: ClaudeCodeExportOptions): Json {
  return {
    parentUuid: parent,
    isSidechain: false,
    userType: 'external',
    cwd: options.cwd ?? '/',
    sessionId: options.sessionId ?? 'glyphfold-export',
    version: 'glyphfold-export',
    uuid: item.id,
    timestamp: item.time,
  };
}

/** One entry for `item`, or `undefined` when Claude Code has no place for it (a note says why). */
function entryOf(item: Item, notes: string[]): Json | undefined {
  const user = (content: unknown, extra: Json = {}): Json => ({
    type: 'user',
    ...extra,
    message: { role: 'user', content },
  });
  const assistant = (block: Json): Json => ({
    type: 'assistant',
    message: { role: 'assistant', type: 'message', content: [block] },
  });
  switch (item.kind) {
    case 'message':
      if (item.author === 'model') return assistant({ type: 'text', text: item.text });
      if (/<(system-reminder|task-notification)>/.test(item.text))
        notes.push(
          `${item.id}: the person's text holds a <system-reminder>/<task-notification> tag; Claude Code readers take that part as injected context`,
        );
      return user(item.text);
    case 'context':
      // `isMeta` marks what the client injected; the source label has no field of its own.
      if (item.source !== undefined && item.source !== 'meta')
        notes.push(`${item.id}: context source '${item.source}' is not kept (Claude Code marks it isMeta)`);
      return user(item.text, { isMeta: true });
    case 'reasoning':
      if (item.provider !== undefined && item.provider !== 'anthropic')
        notes.push(
          `${item.id}: ${item.provider} reasoning written as a thinking block without its signature`,
        );
      if (item.encrypted !== undefined && item.provider === 'anthropic')
        return assistant({ type: 'redacted_thinking', data: item.encrypted });
      return assistant({
        type: 'thinking',
        thinking: item.text,
        ...(item.signature !== undefined && item.provider === 'anthropic'
          ? { signature: item.signature }
          : {}),
      });
    case 'tool_call':
      return assistant({ type: 'tool_use', id: item.callId, name: item.name, input: item.input ?? {} });
    case 'tool_result': {
      const files = item.files ?? [];
      if (files.length > 1)
        notes.push(`${item.id}: ${files.length} touched files; Claude Code's toolUseResult names one`);
      return user(
        [
          {
            type: 'tool_result',
            tool_use_id: item.callId,
            content: resultBlocks(item.content),
            ...(item.isError ? { is_error: true } : {}),
          },
        ],
        files.length > 0 ? { toolUseResult: { filePath: files[0] } } : {},
      );
    }
    case 'image':
      if (item.author !== 'person')
        notes.push(`${item.id}: a ${item.author} image is written as one the person attached`);
      return user([
        { type: 'image', source: { type: 'base64', media_type: item.mediaType, data: item.data } },
      ]);
    case 'summary':
      return user(item.text, { isCompactSummary: true });
    case 'digest':
      notes.push(`${item.id}: a rewind digest has no Claude Code entry; written as injected context`);
      return user(item.text, { isMeta: true });
    case 'compaction':
      notes.push(
        `${item.id}: a compaction record (${item.rung}) rebuilds glyphfold requests only; not written`,
      );
      return undefined;
  }
}

/** `items` (a path, root first) as Claude Code session JSONL. */
export function exportClaudeCode(items: readonly Item[], options: ClaudeCodeExportOptions = {}): TextExport {
  const notes: string[] = [];
  const lines: string[] = [];
  let parent: string | null = null;
  for (const item of items) {
    const entry = entryOf(item, notes);
    if (!entry) continue;
    lines.push(JSON.stringify({ ...envelope(item, parent, options), ...entry }));
    parent = item.id;
  }
  return { text: lines.map((l) => l + '\n').join(''), notes };
}
