/**
 * Nesting limits for imported JSON. `JSON.parse` itself copes with deep nesting, but everything after
 * it (validation, canonical JSON, hashing) walks values recursively: a hostile file 100,000 brackets
 * deep would end in "Maximum call stack size exceeded" with no position. These checks refuse such input
 * first, naming where the limit was crossed.
 */

/** Deepest nesting of arrays and objects an import accepts (real transcripts stay under 20). */
export const MAX_IMPORT_DEPTH = 256;

/**
 * Scans JSON or JSONL text without parsing it and throws a RangeError naming the line and column
 * where nesting first exceeds `max`. Brackets inside strings do not count.
 */
export function checkTextDepth(text: string, max = MAX_IMPORT_DEPTH): void {
  let depth = 0;
  let inString = false;
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      else if (c === 0x0a) {
        // A raw newline cannot be inside a JSON string: a torn JSONL line; the next line starts fresh.
        inString = false;
        depth = 0;
        line++;
        lineStart = i + 1;
      }
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max)
        throw new RangeError(
          `import: JSON nested deeper than ${max} levels at line ${line}, column ${i - lineStart + 1}`,
        );
    } else if (c === 0x5d || c === 0x7d) {
      if (depth > 0) depth--;
    } else if (c === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
}

/** The same limit for a value parsed elsewhere (the serverless handler's JSON body); iterative. */
export function checkValueDepth(value: unknown, max = MAX_IMPORT_DEPTH): void {
  const stack: [unknown, number, string][] = [[value, 1, '$']];
  while (stack.length > 0) {
    const [v, depth, path] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max)
      throw new RangeError(`import: JSON nested deeper than ${max} levels at ${path.slice(0, 200)}`);
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) stack.push([v[i], depth + 1, `${path}[${i}]`]);
    else for (const [k, child] of Object.entries(v)) stack.push([child, depth + 1, `${path}.${k}`]);
  }
}
