/**
 * Which tool results later items still refer to. Elision must never clear a result the conversation
 * builds on (PEERS.md pain #9): a later item mentions its call id or a file it produced, or a later
 * call takes part of it as input (a path from a listing, an id from a search).
 */
import type { Item } from '../transcript/items.js';

/** Lines shorter than this are too common ("}", "ok") to count as a call taking the result as input. */
const MIN_LINE = 8;

const SPLIT = /[\s"'`<>()[\]{},;=|]+/;

/** Only tokens that can be an id or a path matter: they carry a digit or one of `/ . _ -`. */
const ID_LIKE = /[0-9/._-]/;

function addTokens(text: string, into: Set<string>): void {
  for (const raw of text.split(SPLIT)) {
    if (raw.length < 3 || !ID_LIKE.test(raw)) continue;
    // Trailing sentence punctuation and `:line` suffixes are not part of a path or id.
    const last = raw.charCodeAt(raw.length - 1);
    const t = last === 46 || last === 58 || last === 33 || last === 63 ? raw.replace(/[.:!?]+$/, '') : raw;
    into.add(t);
    const colon = t.indexOf(':');
    if (colon > 0) into.add(t.slice(0, colon));
    if (t.startsWith('./')) into.add(t.slice(2));
  }
}

function addStrings(
  value: unknown,
  tokens: Set<string>,
  lines: Set<string>,
  maxLine: { value: number },
  depth = 0,
): void {
  if (depth > 32) return;
  if (typeof value === 'string') {
    addTokens(value, tokens);
    for (const line of value.split('\n')) {
      const l = line.trim();
      if (l.length >= MIN_LINE) {
        lines.add(l);
        if (l.length > maxLine.value) maxLine.value = l.length;
      }
    }
  } else if (Array.isArray(value)) {
    for (const v of value) addStrings(v, tokens, lines, maxLine, depth + 1);
  } else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) addStrings(v, tokens, lines, maxLine, depth + 1);
  }
}

function resultFeedsLines(
  item: Item & { kind: 'tool_result' },
  lines: Set<string>,
  maxLine: number,
): boolean {
  if (lines.size === 0) return false;
  for (const part of item.content) {
    if (part.type !== 'text') continue;
    let start = 0;
    const text = part.text;
    while (start <= text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      // A line longer than any call-input line plus indentation cannot be one of them: skip the slice.
      if (end - start >= MIN_LINE && end - start <= maxLine + 64) {
        const l = text.slice(start, end).trim();
        if (l.length >= MIN_LINE && lines.has(l)) return true;
      }
      start = end + 1;
    }
  }
  return false;
}

/**
 * Indices (among `candidates`, each a tool result) that a later item refers to. One backward pass:
 * tokens of later messages, reasoning, context and call inputs are collected as we go.
 */
export function referencedResults(items: readonly Item[], candidates: ReadonlySet<number>): Set<number> {
  const referenced = new Set<number>();
  const tokens = new Set<string>();
  const callLines = new Set<string>();
  const maxLine = { value: 0 };
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i]!;
    switch (it.kind) {
      case 'tool_result':
        if (candidates.has(i)) {
          const byMention =
            tokens.has(it.callId) ||
            (it.files ?? []).some((f) => tokens.has(f) || tokens.has(f.replace(/^\.\//, '')));
          if (byMention || resultFeedsLines(it, callLines, maxLine.value)) referenced.add(i);
        }
        break;
      case 'tool_call':
        addStrings(it.input, tokens, callLines, maxLine);
        break;
      case 'message':
      case 'context':
      case 'reasoning':
      case 'summary':
      case 'digest':
        addTokens(it.text, tokens);
        break;
      case 'image':
        if (it.text) addTokens(it.text, tokens);
        break;
      case 'compaction':
        break;
    }
  }
  return referenced;
}
