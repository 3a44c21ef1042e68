/**
 * `normalize(text)` defines exactly what a set of pages holds (docs/renderer.md §1), so that
 * `decode(render(t)) === normalize(t)` for every string `t`.
 */

/** Tab stops every this many columns, counted in code points from the start of the line. */
export const TAB_WIDTH = 4;

function expandTabs(line: string): string {
  let out = '';
  let col = 0;
  // for…of walks code points; a lone surrogate is one step (one column), as the renderer counts it.
  for (const ch of line) {
    if (ch === '\t') {
      const n = TAB_WIDTH - (col % TAB_WIDTH);
      out += ' '.repeat(n);
      col += n;
    } else {
      out += ch;
      col++;
    }
  }
  return out;
}

/**
 * The text a rendering of `text` represents:
 * 1. `\r\n` → `\n`, then any other `\r` → `\n`;
 * 2. tabs expand to spaces up to the next multiple of 4 columns (code points from the line start);
 * 3. trailing spaces (U+0020) of every line are removed;
 * 4. trailing newlines at the end of the text are removed.
 *
 * Nothing else changes: controls, lone surrogates and code points the font lacks are kept (pages show
 * them as `U+XXXX` escapes). The result is idempotent: `normalize(normalize(t)) === normalize(t)`.
 */
export function normalize(text: string): string {
  if (typeof text !== 'string') {
    throw new TypeError(
      `normalize: expected text to be a string, found ${text === null ? 'null' : typeof text}`,
    );
  }
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    if (line.includes('\t')) line = expandTabs(line);
    if (line.endsWith(' ')) line = line.replace(/ +$/, '');
    lines[i] = line;
  }
  let end = lines.length;
  while (end > 0 && lines[end - 1] === '') end--;
  return lines.slice(0, end).join('\n');
}
