/**
 * Tool output as a reader needs it. Some harnesses wrap a tool's text in JSON before the model gets it:
 * Codex 0.40's shell tools send `{"output":"…","metadata":{"exit_code":0,"duration_seconds":0.1}}`
 * as the function_call_output string. The record and the wire keep those bytes (the model saw them,
 * prompt caches depend on them); screens and snapshot pages show the output with its escapes undone
 * and the metadata as one line, which is what a person or a page reader can read.
 */

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** How each known metadata field is written; others as `key value`. */
function metaNote(key: string, value: unknown): string {
  if (key === 'exit_code') return `exit code ${String(value)}`;
  if (key === 'duration_seconds' && typeof value === 'number') return `${value} s`;
  return `${key} ${typeof value === 'string' ? value : JSON.stringify(value)}`;
}

/**
 * `text` unwrapped when it is exactly a JSON object `{ output: string, metadata: object }` (Codex's
 * wrapper): the output, then `[exit code 0, 0.1 s]`. Anything else comes back unchanged.
 */
export function readableToolOutput(text: string): string {
  // Cheap test first: tool outputs are often large and almost never this wrapper.
  if (!text.startsWith('{') || !text.includes('"metadata"')) return text;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return text;
  }
  if (!isRecord(v) || typeof v.output !== 'string' || !isRecord(v.metadata) || Object.keys(v).length !== 2)
    return text;
  const notes = Object.entries(v.metadata).map(([k, x]) => metaNote(k, x));
  const sep = v.output === '' || v.output.endsWith('\n') ? '' : '\n';
  return notes.length > 0 ? `${v.output}${sep}[${notes.join(', ')}]` : v.output;
}
