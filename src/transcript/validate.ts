/**
 * Validation of items read from a log or handed to `append()`: every error names the item id and the
 * field, with what was expected and what was found.
 */
import { AUTHORS, ITEM_KINDS, KIND_AUTHORS, type Item, type ItemKind } from './items.js';

/** An item that does not match the model in `items.ts`. */
export class ItemValidationError extends Error {
  override name = 'ItemValidationError';
  constructor(
    /** Id of the offending item, or `'?'` when it has none. */
    readonly itemId: string,
    /** Dotted path of the offending field, e.g. `content[1].mediaType`. */
    readonly field: string,
    readonly expected: string,
    readonly found: string,
  ) {
    super(`item ${itemId}: field '${field}' expected ${expected}, found ${found}`);
  }
}

const MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'string')
    return v.length > 40 ? `string "${v.slice(0, 40)}…"` : `string ${JSON.stringify(v)}`;
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
}

type Check = (obj: Record<string, unknown>, field: string, id: string) => void;

function fail(id: string, field: string, expected: string, found: unknown): never {
  throw new ItemValidationError(id, field, expected, describe(found));
}
const str: Check = (o, f, id) => {
  if (typeof o[f] !== 'string') fail(id, f, 'a string', o[f]);
};
const optStr: Check = (o, f, id) => {
  if (o[f] !== undefined && typeof o[f] !== 'string') fail(id, f, 'a string or nothing', o[f]);
};
const optBool: Check = (o, f, id) => {
  if (o[f] !== undefined && typeof o[f] !== 'boolean') fail(id, f, 'a boolean or nothing', o[f]);
};
function oneOf(values: readonly string[]): Check {
  return (o, f, id) => {
    if (!values.includes(o[f] as string)) fail(id, f, `one of ${values.join('|')}`, o[f]);
  };
}
function optOneOf(values: readonly string[]): Check {
  return (o, f, id) => {
    if (o[f] !== undefined && !values.includes(o[f] as string))
      fail(id, f, `one of ${values.join('|')} or nothing`, o[f]);
  };
}
function checkImage(o: Record<string, unknown>, prefix: string, id: string): void {
  const at = (f: string) => prefix + f;
  if (!MEDIA_TYPES.includes(o.mediaType as string))
    fail(id, at('mediaType'), `one of ${MEDIA_TYPES.join('|')}`, o.mediaType);
  if (typeof o.data !== 'string') fail(id, at('data'), 'a base64 string', o.data);
  for (const f of ['width', 'height']) {
    const v = o[f];
    if (v !== undefined && !(Number.isInteger(v) && (v as number) > 0))
      fail(id, at(f), 'a positive integer or nothing', v);
  }
}
function range(o: Record<string, unknown>, f: string, id: string, optional: boolean): void {
  const v = o[f];
  if (v === undefined && optional) return;
  if (typeof v !== 'object' || v === null) fail(id, f, 'an object { from, to }', v);
  const r = v as Record<string, unknown>;
  if (typeof r.from !== 'string') fail(id, `${f}.from`, 'an item id', r.from);
  if (typeof r.to !== 'string') fail(id, `${f}.to`, 'an item id', r.to);
}

const PER_KIND: Record<ItemKind, (o: Record<string, unknown>, id: string) => void> = {
  message: (o, id) => {
    str(o, 'text', id);
    optStr(o, 'signature', id);
  },
  context: (o, id) => {
    str(o, 'text', id);
    optStr(o, 'source', id);
  },
  reasoning: (o, id) => {
    str(o, 'text', id);
    optOneOf(['anthropic', 'openai', 'gemini'])(o, 'provider', id);
    optStr(o, 'signature', id);
    optStr(o, 'encrypted', id);
  },
  tool_call: (o, id) => {
    str(o, 'callId', id);
    str(o, 'name', id);
    if (!('input' in o)) fail(id, 'input', 'the parsed arguments', undefined);
    optStr(o, 'signature', id);
    optStr(o, 'agent', id);
  },
  tool_result: (o, id) => {
    str(o, 'callId', id);
    str(o, 'name', id);
    if (!Array.isArray(o.content)) fail(id, 'content', 'an array of parts', o.content);
    (o.content as unknown[]).forEach((p, i) => {
      const f = `content[${i}]`;
      if (typeof p !== 'object' || p === null) fail(id, f, 'a part object', p);
      const part = p as Record<string, unknown>;
      if (part.type === 'text') {
        if (typeof part.text !== 'string') fail(id, `${f}.text`, 'a string', part.text);
      } else if (part.type === 'image') checkImage(part, `${f}.`, id);
      else fail(id, `${f}.type`, "'text' or 'image'", part.type);
    });
    optBool(o, 'isError', id);
    if (o.files !== undefined) {
      if (!Array.isArray(o.files)) fail(id, 'files', 'an array of paths or nothing', o.files);
      (o.files as unknown[]).forEach((p, i) => {
        if (typeof p !== 'string') fail(id, `files[${i}]`, 'a path string', p);
      });
    }
  },
  image: (o, id) => {
    checkImage(o, '', id);
    optStr(o, 'text', id);
  },
  summary: (o, id) => {
    str(o, 'text', id);
    range(o, 'covers', id, true);
  },
  digest: (o, id) => {
    str(o, 'text', id);
    optStr(o, 'checkpoint', id);
    optStr(o, 'abandonedTip', id);
  },
  compaction: (o, id) => {
    oneOf(['elide', 'shed', 'snapshot', 'summarize'])(o, 'rung', id);
    range(o, 'range', id, false);
    if (typeof o.params !== 'object' || o.params === null || Array.isArray(o.params))
      fail(id, 'params', 'an object', o.params);
    optStr(o, 'summary', id);
  },
};

/**
 * Checks that `value` is a well-formed item. Throws `ItemValidationError` naming the item id and the
 * first wrong field; returns the value typed as an `Item` otherwise.
 */
export function validateItem(value: unknown): Item {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ItemValidationError('?', '(item)', 'an object', describe(value));
  const o = value as Record<string, unknown>;
  const id = typeof o.id === 'string' && o.id.length > 0 ? o.id : '?';
  if (id === '?') fail(id, 'id', 'a non-empty string', o.id);
  if (o.parent !== null && (typeof o.parent !== 'string' || o.parent.length === 0))
    fail(id, 'parent', 'an item id or null', o.parent);
  if (!(Number.isInteger(o.turn) && (o.turn as number) >= 1)) fail(id, 'turn', 'an integer >= 1', o.turn);
  if (typeof o.time !== 'string' || !ISO_TIME.test(o.time)) fail(id, 'time', 'an ISO-8601 time', o.time);
  if (!ITEM_KINDS.includes(o.kind as ItemKind)) fail(id, 'kind', `one of ${ITEM_KINDS.join('|')}`, o.kind);
  const kind = o.kind as ItemKind;
  if (!AUTHORS.includes(o.author as never)) fail(id, 'author', `one of ${AUTHORS.join('|')}`, o.author);
  if (!KIND_AUTHORS[kind].includes(o.author as never))
    fail(id, 'author', `one of ${KIND_AUTHORS[kind].join('|')} for kind '${kind}'`, o.author);
  optBool(o, 'pinned', id);
  PER_KIND[kind](o, id);
  return value as Item;
}
