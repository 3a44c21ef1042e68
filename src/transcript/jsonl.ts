/**
 * Export and import of a path as JSONL: one item per line, keys in a fixed order so the same items
 * always give the same bytes (diffs, hashes and prompt caches depend on it).
 */
import { ITEM_KINDS, KIND_AUTHORS, type Item, type ItemKind } from './items.js';

/** Key order of each line: the common fields, then the kind's own fields; unknown keys follow sorted. */
const KEY_ORDER = [
  'id',
  'parent',
  'turn',
  'time',
  'kind',
  'author',
  'pinned',
  'text',
  'source',
  'callId',
  'name',
  'input',
  'content',
  'isError',
  'files',
  'provider',
  'signature',
  'encrypted',
  'mediaType',
  'width',
  'height',
  'data',
  'covers',
  'checkpoint',
  'abandonedTip',
  'rung',
  'range',
  'params',
  'summary',
];
const RANK = new Map(KEY_ORDER.map((k, i) => [k, i]));

function ordered(item: Item): Record<string, unknown> {
  const keys = Object.keys(item).sort((a, b) => {
    const ra = RANK.get(a) ?? KEY_ORDER.length;
    const rb = RANK.get(b) ?? KEY_ORDER.length;
    return ra !== rb ? ra - rb : a < b ? -1 : a > b ? 1 : 0;
  });
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = (item as unknown as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** One JSON line per item, each ending in `\n`; nested values (tool input, params) keep their own order. */
export function exportJsonl(items: readonly Item[]): string {
  return items.map((item) => `${JSON.stringify(ordered(item))}\n`).join('');
}

const REQUIRED: Record<ItemKind, Record<string, string>> = {
  message: { text: 'string' },
  context: { text: 'string' },
  reasoning: { text: 'string' },
  tool_call: { callId: 'string', name: 'string' },
  tool_result: { callId: 'string', name: 'string', content: 'array' },
  image: { mediaType: 'string', data: 'string' },
  summary: { text: 'string' },
  digest: { text: 'string' },
  compaction: { rung: 'string', range: 'object', params: 'object' },
};

const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/**
 * Checks the shape of one parsed line and returns it as an item; throws naming the field, the
 * expected type and what was found. Structural only: hashing and chain checks belong to the store.
 */
export function checkItem(value: unknown, where: string): Item {
  if (kindOf(value) !== 'object')
    throw new Error(`${where}: expected an item object, found ${kindOf(value)}`);
  const v = value as Record<string, unknown>;
  const common: Record<string, string> = {
    id: 'string',
    turn: 'number',
    time: 'string',
    kind: 'string',
    author: 'string',
  };
  for (const [field, type] of Object.entries(common)) {
    if (kindOf(v[field]) !== type)
      throw new Error(`${where}: field "${field}" expected ${type}, found ${kindOf(v[field])}`);
  }
  if (v.parent !== null && typeof v.parent !== 'string') {
    throw new Error(`${where}: field "parent" expected string or null, found ${kindOf(v.parent)}`);
  }
  const kind = v.kind as ItemKind;
  if (!ITEM_KINDS.includes(kind))
    throw new Error(
      `${where}: field "kind" expected one of ${ITEM_KINDS.join('|')}, found ${JSON.stringify(v.kind)}`,
    );
  if (!(KIND_AUTHORS[kind] as readonly string[]).includes(v.author as string)) {
    throw new Error(
      `${where}: a ${kind} item's author expected ${KIND_AUTHORS[kind].join('|')}, found ${JSON.stringify(v.author)}`,
    );
  }
  for (const [field, type] of Object.entries(REQUIRED[kind])) {
    if (kindOf(v[field]) !== type)
      throw new Error(`${where}: ${kind} field "${field}" expected ${type}, found ${kindOf(v[field])}`);
  }
  return v as unknown as Item;
}

/** Parses `exportJsonl` output back into items; a bad line throws with its 1-based line number. */
export function parseJsonl(text: string): Item[] {
  const items: Item[] = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new Error(`jsonl: line ${i + 1} is not valid JSON (${(error as Error).message})`, {
        cause: error,
      });
    }
    items.push(checkItem(value, `jsonl: line ${i + 1}`));
  });
  return items;
}
