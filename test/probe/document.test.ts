/** The probe's needle document and its grading, checked against the renderer's own layout. */
import { describe, expect, it } from 'vitest';
import { pageGeometry } from '../../src/render/geometry.js';
import { countPages } from '../../src/render/reference.js';
import { normalize } from '../../src/render/normalize.js';
import { buildDocument } from '../../src/probe/document.js';
import { NEEDLE_KINDS } from '../../src/probe/needles.js';
import type { CellName } from '../../src/render/cells.js';

const SHAPES: { width: number; height: number; cell: CellName; scale: number }[] = [
  { width: 1568, height: 784, cell: '4x6', scale: 1 },
  { width: 784, height: 1568, cell: '5x8', scale: 1 },
  { width: 2048, height: 1248, cell: '6x10', scale: 1 },
  { width: 1568, height: 784, cell: '6x10', scale: 2 },
  { width: 768, height: 2048, cell: '4x6', scale: 2 },
];

describe('buildDocument', () => {
  for (const s of SHAPES) {
    it(`fills exactly N pages of ${s.width}x${s.height} ${s.cell}@${s.scale}, needles on their pages`, () => {
      const g = pageGeometry({ width: s.width, height: s.height }, s.cell, s.scale);
      const options = { shape: { width: s.width, height: s.height }, cell: s.cell, scale: s.scale };
      for (const pages of [1, 3]) {
        const doc = buildDocument({ seed: 7, pages, cols: g.cols, rows: g.rows, needlesPerPage: 8 });
        expect(countPages(doc.text, options).pages).toBe(pages);
        expect(normalize(doc.text).length).toBeGreaterThan(doc.text.length * 0.8);
        expect(doc.needles).toHaveLength(8 * pages);
        for (const n of doc.needles) {
          const at = doc.text.indexOf(`${n.label} `);
          expect(at, n.label).toBeGreaterThanOrEqual(0);
          const end = doc.text.indexOf(n.value, at) + n.value.length;
          expect(end - at, `${n.label} value follows its label`).toBeLessThan(n.value.length + 20);
          expect(countPages(doc.text.slice(0, end), options).pages, `${n.label} on page ${n.page}`).toBe(
            n.page,
          );
        }
        // Every kind appears on every page.
        for (let p = 1; p <= pages; p++) {
          expect(new Set(doc.needles.filter((n) => n.page === p).map((n) => n.kind))).toEqual(
            new Set(NEEDLE_KINDS),
          );
        }
      }
    });
  }

  it('is deterministic per seed and differs across seeds', () => {
    const a = buildDocument({ seed: 1, pages: 1, cols: 392, rows: 130, needlesPerPage: 8 });
    const b = buildDocument({ seed: 1, pages: 1, cols: 392, rows: 130, needlesPerPage: 8 });
    const c = buildDocument({ seed: 2, pages: 1, cols: 392, rows: 130, needlesPerPage: 8 });
    expect(b).toEqual(a);
    expect(c.text).not.toBe(a.text);
    expect(c.needles.map((n) => n.value)).not.toEqual(a.needles.map((n) => n.value));
  });

  it('labels are unique and values distinct', () => {
    const doc = buildDocument({ seed: 3, pages: 4, cols: 392, rows: 130, needlesPerPage: 8 });
    expect(new Set(doc.needles.map((n) => n.label)).size).toBe(doc.needles.length);
    expect(new Set(doc.needles.map((n) => n.value)).size).toBeGreaterThan(doc.needles.length - 2);
  });

  it('refuses a page too small for its needles, naming the sizes', () => {
    expect(() => buildDocument({ seed: 1, pages: 1, cols: 60, rows: 10, needlesPerPage: 8 })).toThrow(
      /10 rows; 8 needles per page need at least 16/,
    );
    expect(() => buildDocument({ seed: 1, pages: 1, cols: 20, rows: 100, needlesPerPage: 8 })).toThrow(
      /20 columns/,
    );
  });
});
