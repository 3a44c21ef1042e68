/**
 * The pairing property in full (1,000 seeded paths): every repaired wire view pairs every call with
 * exactly one result, in order. Not in the mutation test set (each mutant would re-run it); that set
 * runs pairing-quick.test.ts instead.
 */
import { describe, expect, it } from 'vitest';
import { pairingProperty, VIOLATION_KINDS } from './pairing-property.js';

describe('property: every repaired wire view pairs every call with exactly one result, in order', () => {
  it('holds for random trees, cuts and elisions, for all four providers', () => {
    const { paths, broken, sent, kinds } = pairingProperty(1000, 12);
    // The generator is not vacuous. Seed 12 gives 668 of 1,000 paths needing repair, 2,295 of 4,000
    // bodies checked, and per kind: missing 317, orphan 422, misplaced 53, duplicate result 55, result
    // before call 66, duplicate call 54. The bounds leave room for generator tweaks, not for a kind to vanish.
    expect(paths).toBe(1000);
    expect(broken).toBeGreaterThan(500);
    expect(sent).toBeGreaterThan(1800);
    for (const kind of VIOLATION_KINDS)
      expect(kinds.get(kind) ?? 0, `${kind} (counts: ${JSON.stringify([...kinds])})`).toBeGreaterThanOrEqual(
        40,
      );
  });
});
