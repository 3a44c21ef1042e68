// Linear-memory layout. Nothing here uses the AssemblyScript heap (`--runtime stub`, no allocation):
// every region is an offset computed from `__heap_base`, and the module grows memory itself.
//
//   heapBase  raw atlas, written by JS (docs/renderer.md §6)         once per cell
//   lutPtr    u16[65536] BMP code point → glyph (0xFFFF = escape)    built once per cell+scale
//   rowsPtr   u32[glyphs × ch] glyph rows, ink = 1, scaled width     built once per cell+scale
//   quadPtr   4 × glyphs × v128 (4-px cells only, see blit.ts)       built once per cell+scale
//   pagePtr   H × stride bytes: the page's PNG scanlines             reused for every page
//   cellPtr   u16[cols] glyph indices of the row being drawn         reused for every row
//   inPtr     the text: UTF-8 bytes or UTF-16 units (+ 32 B padding) written by JS once per render

/** Rounds `n` up to a multiple of 16 (v128 loads want aligned tables; it also keeps regions apart). */
export function align16(n: usize): usize {
  return (n + 15) & ~(<usize>15);
}

/** Grows memory so that [0, end) is addressable; false if the host refuses (out of memory). */
export function ensureMemory(end: usize): bool {
  const need = <i32>((end + 0xffff) >>> 16);
  const have = memory.size();
  if (need <= have) return true;
  return memory.grow(need - have) >= 0;
}

export const heapBase: usize = align16(__heap_base);
