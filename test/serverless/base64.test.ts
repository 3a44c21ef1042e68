import { expect, it } from 'vitest';
import fc from 'fast-check';
import { toBase64 } from '../../src/serverless/base64.js';

it('matches Node’s base64 for every length and byte value', () => {
  for (const s of ['', 'f', 'fo', 'foo', 'foob', 'fooba', 'foobar']) {
    expect(toBase64(new TextEncoder().encode(s))).toBe(Buffer.from(s).toString('base64')); // RFC 4648 §10
  }
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 4096 }), (bytes) => {
      expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
    }),
  );
});
