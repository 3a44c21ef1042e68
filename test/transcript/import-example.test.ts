import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importTranscript } from '../../src/transcript/import/index.js';
import { itemText } from '../../src/transcript/items.js';
import { EXAMPLE, EXAMPLE_PATH } from '../../scripts/make-example.js';
import { calls, expectLinearPath, results } from './fixtures.js';

describe('bundled example session', () => {
  const text = readFileSync(EXAMPLE_PATH, 'utf8');

  it('is what scripts/make-example.ts generates (regenerate after changing the script)', () => {
    expect(EXAMPLE === text).toBe(true);
  });

  it('is long: 400–600 KB of JSONL holding well over 300k characters of transcript', () => {
    expect(text.length).toBeGreaterThan(400 * 1024);
    expect(text.length).toBeLessThan(600 * 1024);
    const r = importTranscript(text);
    expect(r.items.reduce((n, i) => n + itemText(i).length, 0)).toBeGreaterThan(300_000);
  });

  it('imports cleanly: linear path, five turns, every call paired, screenshots with sizes', () => {
    const r = importTranscript(text);
    expect(r.format).toBe('claude-code');
    expect(r.warnings).toEqual([]);
    expectLinearPath(r.items);
    expect(r.items.at(-1)!.turn).toBe(5);
    expect(calls(r.items).length).toBe(results(r.items).length);
    expect(results(r.items).filter((x) => x.isError).length).toBeGreaterThanOrEqual(5);
    const images = [
      ...r.items.filter((i) => i.kind === 'image'),
      ...results(r.items).flatMap((x) => x.content.filter((p) => p.type === 'image')),
    ];
    expect(images.map((i) => `${i.width}x${i.height}`)).toEqual(['480x300', '480x300']);
  });
});
