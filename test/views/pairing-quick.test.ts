/**
 * The pairing property on a short seeded run (150 paths): the mutation test set runs this instead of
 * the 1,000-path run of pairing.property.test.ts, so that each mutant of pairing.ts costs a second or
 * two, not a minute. The run still produces every violation kind.
 */
import { describe, expect, it } from 'vitest';
import { pairingProperty, VIOLATION_KINDS } from './pairing-property.js';

describe('property (short run): every repaired wire view pairs every call with exactly one result', () => {
  it('holds for 150 random trees, cuts and elisions, every violation kind among them', () => {
    const { paths, broken, sent, kinds } = pairingProperty(150, 7);
    expect(paths).toBe(150);
    expect(broken).toBeGreaterThan(75);
    expect(sent).toBeGreaterThan(270);
    for (const kind of VIOLATION_KINDS)
      expect(kinds.get(kind) ?? 0, `${kind} (counts: ${JSON.stringify([...kinds])})`).toBeGreaterThanOrEqual(
        5,
      );
  });
});
