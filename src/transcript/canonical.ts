/**
 * Canonical JSON and the hash that chains log entries.
 *
 * Canonical form: object keys sorted by UTF-16 code unit, no whitespace, `undefined` members omitted,
 * everything else as `JSON.stringify` writes it. Two equal values always give the same bytes, so the
 * hash of an entry does not depend on the order its fields were assigned in.
 */
import { createHash } from 'node:crypto';

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

/** Lower-case hex sha256 of a UTF-8 string. */
export function sha256Hex(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}
