/**
 * Canonical JSON: the bytes that log entries are hashed over (the hash itself is in `hash.ts`, which
 * needs Node's crypto; this module stays edge-safe for views and compaction).
 *
 * Canonical form: object keys sorted by UTF-16 code unit, no whitespace, `undefined` members omitted,
 * everything else as `JSON.stringify` writes it. Two equal values always give the same bytes, so the
 * hash of an entry does not depend on the order its fields were assigned in.
 */
/** Serialises `value` canonically. Throws on values JSON cannot represent faithfully. */
export function canonicalJson(value: unknown): string {
  return write(value, '$');
}

function write(value: unknown, where: string): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value))
        throw new TypeError(`canonicalJson: ${where} is ${value}, expected a finite number`);
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value))
        return '[' + value.map((v, i) => write(v ?? null, `${where}[${i}]`)).join(',') + ']';
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj).sort();
      let out = '{';
      for (const key of keys) {
        const v = obj[key];
        if (v === undefined) continue;
        if (out.length > 1) out += ',';
        out += JSON.stringify(key) + ':' + write(v, `${where}.${key}`);
      }
      return out + '}';
    }
    default:
      throw new TypeError(`canonicalJson: ${where} is a ${typeof value}, expected JSON data`);
  }
}
