/** Ids that become file names (conversation and agent ids) are checked here before any path is built. */

/** Letters, digits, `_`, `-`, `.`; starts with a letter, digit or `_`; at most 100 characters; no `..`. */
export const ID_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;

/** Throws a `RangeError` naming `what` unless `id` is safe as a file name. */
export function validateId(what: 'conversation' | 'agent', id: unknown): string {
  if (typeof id !== 'string') throw new RangeError(`${what} id expected a string, found ${typeof id}`);
  if (!ID_PATTERN.test(id) || id.includes('..'))
    throw new RangeError(
      `${what} id ${JSON.stringify(id.length > 120 ? id.slice(0, 120) + '…' : id)} is not allowed: expected 1-100 of ` +
        `A-Z a-z 0-9 _ . - (starting with a letter, digit or _; no '..'), found ${describeBad(id)}`,
    );
  return id;
}

function describeBad(id: string): string {
  if (id.length === 0) return 'an empty string';
  if (id.length > 100) return `${id.length} characters`;
  if (id.includes('..')) return "'..'";
  const bad = [...id].find((ch, i) => !/[A-Za-z0-9_.-]/.test(ch) || (i === 0 && /[.-]/.test(ch)));
  return bad === undefined ? 'a bad character' : `the character ${JSON.stringify(bad)}`;
}
