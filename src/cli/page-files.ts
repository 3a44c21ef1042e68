/** File name of page `index` (0-based) in an output directory: page-001.png, page-002.png, … */
export function pageFileName(index: number): string {
  return `page-${String(index + 1).padStart(3, '0')}.png`;
}
