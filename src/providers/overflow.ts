/**
 * Reads a provider's "context too long" error: which provider, and where the message says so, the
 * tokens it measured and its limit. The patterns are profile data (`overflowPatterns`), so a user
 * profile can teach the parser a new message.
 */
import { listProfiles } from './registry.js';
import { isObject } from './validate.js';
import type { Profile, Provider } from './types.js';

export interface OverflowInfo {
  provider: Provider;
  /** Input tokens the provider counted. */
  measuredTokens?: number;
  /** The limit it compared against (the context window, for Anthropic's `max_tokens` message input + output). */
  limit?: number;
  /** Output tokens the request reserved, where the message says (`max_tokens`, "in the completion"). */
  requestedOutput?: number;
  /** HTTP status, where the error carried one. */
  status?: number;
  /** The text the pattern matched in. */
  message: string;
}

/** Texts an error may carry its message in: SDK errors, parsed bodies, strings, JSON strings. */
function candidateTexts(error: unknown, depth = 0): string[] {
  if (depth > 4 || error === null || error === undefined) return [];
  if (typeof error === 'string') {
    const out = [error];
    // SDK messages are often "400 {json body}"; Gemini's SDK puts the whole body JSON in `message`.
    const brace = error.indexOf('{');
    if (brace >= 0) {
      try {
        out.push(...candidateTexts(JSON.parse(error.slice(brace)), depth + 1));
      } catch {
        // Not JSON after all: the raw string is still a candidate.
      }
    }
    return out;
  }
  if (!isObject(error) && !(error instanceof Error)) return [];
  const o = error as Record<string, unknown>;
  const out: string[] = [];
  for (const key of ['message', 'code', 'type']) {
    if (typeof o[key] === 'string') out.push(...candidateTexts(o[key], depth + 1));
  }
  // Anthropic SDK: error.error = { type: 'error', error: { type, message } }; OpenAI SDK: error.error = { message, code };
  // raw bodies: { error: { message, code, status } }.
  for (const key of ['error', 'body', 'response', 'cause']) {
    if (o[key] !== undefined && o[key] !== error) out.push(...candidateTexts(o[key], depth + 1));
  }
  return out;
}

function statusOf(error: unknown): number | undefined {
  if (!isObject(error) && !(error instanceof Error)) return undefined;
  const o = error as Record<string, unknown>;
  if (typeof o.status === 'number') return o.status;
  if (typeof o.statusCode === 'number') return o.statusCode;
  if (isObject(o.error) && typeof o.error.code === 'number') return o.error.code;
  return undefined;
}

const toInt = (s: string | undefined): number | undefined =>
  s === undefined ? undefined : Number(s.replace(/,/g, ''));

interface CompiledPattern {
  provider: Provider;
  re: RegExp;
}

let cache: { key: Profile[]; patterns: CompiledPattern[] } | undefined;

function compiled(profiles: Profile[]): CompiledPattern[] {
  if (cache && cache.key.length === profiles.length && cache.key.every((p, i) => p === profiles[i])) {
    return cache.patterns;
  }
  const seen = new Set<string>();
  const patterns: CompiledPattern[] = [];
  for (const p of profiles) {
    for (const src of p.overflowPatterns) {
      const key = `${p.provider}\u0000${src}`;
      if (seen.has(key)) continue;
      seen.add(key);
      patterns.push({ provider: p.provider, re: new RegExp(src) });
    }
  }
  cache = { key: profiles, patterns };
  return patterns;
}

/**
 * Recognises a context-overflow error from Anthropic, OpenAI (Chat Completions and Responses) or Gemini,
 * given an SDK error, a parsed error body, or the message text. Returns undefined for anything else.
 * Pass `profile` to use only that profile's patterns.
 */
export function parseOverflowError(error: unknown, profile?: Profile): OverflowInfo | undefined {
  const texts = candidateTexts(error);
  if (texts.length === 0) return undefined;
  const patterns = compiled(profile ? [profile] : listProfiles());
  let best: OverflowInfo | undefined;
  for (const text of texts) {
    for (const { provider, re } of patterns) {
      const m = re.exec(text);
      if (!m) continue;
      const g = m.groups ?? {};
      const info: OverflowInfo = { provider, message: text };
      const measured = toInt(g.measured);
      const limit = toInt(g.limit);
      const output = toInt(g.output);
      if (measured !== undefined) info.measuredTokens = measured;
      if (limit !== undefined) info.limit = limit;
      if (output !== undefined) info.requestedOutput = output;
      const status = statusOf(error);
      if (status !== undefined) info.status = status;
      // Prefer a match that carries numbers (the Responses API has a message and a code, no numbers).
      if (!best || (best.measuredTokens === undefined && info.measuredTokens !== undefined)) best = info;
    }
  }
  return best;
}
