/**
 * The plain-text transcript format of a stretch of items: what a snapshot page shows and what the
 * summarizer reads. Deterministic (same items, same string: page bytes and prompt caches depend on
 * it) and plain ASCII in its own markup, so every header is drawable by the 4×6 font.
 *
 *   --- person (turn 3) ---
 *   Please fix the failing test.
 *   --- model call read_file [toolu_1] ---
 *   {"path":"src/a.ts"}
 *   --- result read_file [toolu_1] ---
 *   ...
 */
import { canonicalJson } from '../transcript/canonical.js';
import type { Item } from '../transcript/items.js';

/**
 * Tool input as text with sorted keys: a record reloaded from disk may hold the same input with its
 * keys in another order, and the page must not change with it (the bytes feed a prompt cache).
 */
function stableJson(value: unknown): string {
  try {
    return canonicalJson(value ?? null);
  } catch {
    return JSON.stringify(value) ?? 'null';
  }
}

/** The header line of one item. */
export function itemHeader(item: Item): string {
  const turn = `turn ${item.turn}`;
  switch (item.kind) {
    case 'message':
      return `--- ${item.author} (${turn}) ---`;
    case 'context':
      return `--- context${item.source ? ' ' + item.source : ''} (${turn}) ---`;
    case 'reasoning':
      return `--- model thinking (${turn}) ---`;
    case 'tool_call':
      return `--- model call ${item.name} [${item.callId}] ---`;
    case 'tool_result':
      return `--- ${item.isError ? 'error from' : 'result'} ${item.name} [${item.callId}] ---`;
    case 'image':
      return `--- image from ${item.author} (${turn}) ---`;
    case 'summary':
      return `--- summary (${turn}) ---`;
    case 'digest':
      return `--- rewind digest${item.checkpoint ? ' to ' + item.checkpoint : ''} (${turn}) ---`;
    case 'compaction':
      return `--- compaction ${item.rung} ---`;
  }
}

/** The body of one item, as the reader needs it. */
export function itemBody(item: Item): string {
  switch (item.kind) {
    case 'message':
    case 'context':
    case 'summary':
    case 'digest':
      return item.text;
    case 'reasoning':
      return item.text || '(reasoning not shown)';
    case 'tool_call':
      return stableJson(item.input);
    case 'tool_result': {
      const parts: string[] = [];
      for (const p of item.content) {
        if (p.type === 'text') parts.push(p.text);
        else parts.push(`[image ${p.mediaType}${p.width && p.height ? ` ${p.width}x${p.height}` : ''}]`);
      }
      if (item.files?.length) parts.push(`files: ${item.files.join(', ')}`);
      return parts.join('\n');
    }
    case 'image':
      return `[image ${item.mediaType}${item.width && item.height ? ` ${item.width}x${item.height}` : ''}]${item.text ? ' ' + item.text : ''}`;
    case 'compaction':
      return item.summary ?? `range ${item.range.from}..${item.range.to}`;
  }
}

/** One item as transcript text (header, newline, body). */
export function formatItem(item: Item): string {
  return `${itemHeader(item)}\n${itemBody(item)}`;
}

/** A stretch of items as one transcript text. Compaction items are bookkeeping and are skipped. */
export function formatItems(items: readonly Item[]): string {
  const parts: string[] = [];
  for (const it of items) if (it.kind !== 'compaction') parts.push(formatItem(it));
  return parts.join('\n');
}
