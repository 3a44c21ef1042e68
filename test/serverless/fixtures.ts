/** Model ids and inputs the serverless tests share. */

/** A model the profile table knows, with vision. */
export const VISION_MODEL = 'claude-sonnet-4-5';
/** A model the profile table knows, without vision (summaries only). */
export const NO_VISION_MODEL = 'o1-mini';
/** An id nothing matches: the profiles module guesses its most conservative profile (no vision). */
export const UNKNOWN_MODEL = 'acme-frobnicator-9';
/** An id only a generic family matches (a guess, with vision). */
export const GUESSED_VISION_MODEL = 'claude-future-9';

/** A short transcript in a format the importers read (OpenAI Chat messages). */
export const TRANSCRIPT_MESSAGES = [
  { role: 'user', content: 'list the files in src' },
  { role: 'assistant', content: 'src holds cli, render and serverless.' },
];

/** Texts of a few sizes for the load test, deterministic. */
export function loadText(i: number): string {
  const line = `request ${i}: the quick brown fox jumps over the lazy dog ${'#'.repeat(i % 17)}\n`;
  return line.repeat(5 + (i % 40));
}
