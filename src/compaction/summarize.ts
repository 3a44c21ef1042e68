/**
 * Rung 4, the summary: the only rung that spends a model call and decides what mattered, so it runs
 * last. It summarizes from the record (the original items), never from an earlier summary of items
 * it still has (summaries of summaries decay, PEERS.md #3), into a fixed structure that keeps files,
 * commands and numbers. A source too large for the summarizer's window (the overflow case) is cut into
 * chunks that each fit, summarized one by one, and the pieces merged. Chunks are sized by the
 * summarizer's own window; when the summarizer itself answers "prompt is too long" (Anthropic, OpenAI,
 * Gemini shapes, `parseOverflowError`), the rest is re-chunked with the provider's count and retried.
 */
import { parseOverflowError, resolveProfile, type OverflowInfo } from '../providers/index.js';
import type { Item } from '../transcript/items.js';
import { formatItem } from './text.js';

/** One completion: the only thing the summarizer needs from a provider. */
export interface SummarizerClient {
  /** The model that writes summaries, for the report and the compaction item. */
  readonly model: string;
  complete(request: { system: string; user: string; maxTokens: number }): Promise<string>;
}

export interface ClientOptions {
  model: string;
  apiKey?: string;
  baseURL?: string;
  /** Retries of the SDK client (default 2, the SDKs' own default). */
  maxRetries?: number;
  timeoutMs?: number;
}

/**
 * What the Anthropic summarizer calls: the shape of `@anthropic-ai/sdk`'s `client.messages.create`,
 * written here so any copy and major of the SDK (or a wrapper of your own) fits, and glyphfold needs
 * no SDK until a summarizer runs.
 */
export interface AnthropicMessagesClient {
  messages: {
    create(params: {
      model: string;
      max_tokens: number;
      system: string;
      messages: Array<{ role: 'user'; content: string }>;
    }): PromiseLike<{ content: ReadonlyArray<{ type: string; text?: string }>; stop_reason: string | null }>;
  };
}

/** What the OpenAI summarizer calls: the shape of `openai`'s `client.chat.completions.create`. */
export interface OpenAIChatClient {
  chat: {
    completions: {
      create(params: {
        model: string;
        max_completion_tokens: number;
        messages: Array<{ role: 'system' | 'user'; content: string }>;
      }): PromiseLike<{ choices: ReadonlyArray<{ message: { content: string | null } }> }>;
    };
  };
}

/** An environment variable where there is one (Node, Bun, Deno's `process`); edge runtimes have none. */
function env(name: string): string | undefined {
  const p = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return p?.env?.[name];
}

/**
 * The key a summarizer will use, or our own error naming where to put one (not the SDK's 401). With a
 * `baseURL` (a local server or a proxy that holds the key) no key is required: a placeholder is sent.
 */
function requireKey(what: string, given: string | undefined, variable: string, baseURL?: string): string {
  const key = given ?? env(variable);
  if ((key === undefined || key === '') && baseURL !== undefined) return 'none';
  if (key === undefined || key === '')
    throw new Error(
      `${what}: no API key: set ${variable} in the environment or pass apiKey (the summary rung calls the provider)`,
    );
  return key;
}

/** Loads an optional peer SDK on first use, with an error that says how to install it. */
async function loadSdk<T>(name: string, load: () => Promise<{ default: T }>, what: string): Promise<T> {
  try {
    return (await load()).default;
  } catch (err) {
    throw new Error(
      `${what} needs the '${name}' package (an optional peer dependency): npm install ${name}`,
      {
        cause: err,
      },
    );
  }
}

/**
 * A summarizer that calls the Anthropic Messages API, through `client` when given, else through a
 * client of `@anthropic-ai/sdk` created on the first call (the SDK is an optional peer).
 */
export function anthropicSummarizer(
  options: ClientOptions & { client?: AnthropicMessagesClient },
): SummarizerClient {
  const what = `anthropicSummarizer(${options.model})`;
  let client: AnthropicMessagesClient | undefined = options.client;
  const connect = async (): Promise<AnthropicMessagesClient> => {
    const apiKey = requireKey(what, options.apiKey, 'ANTHROPIC_API_KEY', options.baseURL);
    const Anthropic = await loadSdk('@anthropic-ai/sdk', () => import('@anthropic-ai/sdk'), what);
    return new Anthropic({
      apiKey,
      baseURL: options.baseURL ?? null,
      maxRetries: options.maxRetries ?? 2,
      ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
    });
  };
  return {
    model: options.model,
    async complete({ system, user, maxTokens }) {
      client ??= await connect();
      const res = await client.messages.create({
        model: options.model,
        max_tokens: maxTokens,
        system,
        messages: [{ role: 'user', content: user }],
      });
      const text = res.content
        .map((b) => (b.type === 'text' ? b.text : ''))
        .join('')
        .trim();
      if (!text)
        throw new Error(`summarizer ${options.model} returned no text (stop reason ${res.stop_reason})`);
      return text;
    },
  };
}

/**
 * A summarizer that calls OpenAI Chat Completions, through `client` when given, else through a client
 * of `openai` created on the first call (the SDK is an optional peer).
 */
export function openaiSummarizer(options: ClientOptions & { client?: OpenAIChatClient }): SummarizerClient {
  const what = `openaiSummarizer(${options.model})`;
  let client: OpenAIChatClient | undefined = options.client;
  const connect = async (): Promise<OpenAIChatClient> => {
    const apiKey = requireKey(what, options.apiKey, 'OPENAI_API_KEY', options.baseURL);
    const OpenAI = await loadSdk('openai', () => import('openai'), what);
    return new OpenAI({
      apiKey,
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      maxRetries: options.maxRetries ?? 2,
      ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
    });
  };
  return {
    model: options.model,
    async complete({ system, user, maxTokens }) {
      client ??= await connect();
      const res = await client.chat.completions.create({
        model: options.model,
        max_completion_tokens: maxTokens,
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
      });
      const text = res.choices[0]?.message.content?.trim();
      if (!text) throw new Error(`summarizer ${options.model} returned no text`);
      return text;
    },
  };
}

/** A non-2xx answer of the Gemini REST API, carrying its status and body (what `parseOverflowError` reads). */
export class GeminiSummarizerError extends Error {
  override name = 'GeminiSummarizerError';
  constructor(
    readonly status: number,
    readonly error: unknown,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A summarizer that calls Gemini's `generateContent` over plain `fetch` (any runtime, no SDK). No
 * retries: an error is thrown as a `GeminiSummarizerError` with the provider's status and body.
 */
export function geminiSummarizer(options: ClientOptions & { fetch?: typeof fetch }): SummarizerClient {
  const root = (options.baseURL ?? 'https://generativelanguage.googleapis.com/v1beta').replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  return {
    model: options.model,
    async complete({ system, user, maxTokens }) {
      const url = `${root}/models/${encodeURIComponent(options.model)}:generateContent`;
      const res = await doFetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-goog-api-key': requireKey(
            `geminiSummarizer(${options.model})`,
            options.apiKey,
            'GEMINI_API_KEY',
            options.baseURL,
          ),
        },
        body: JSON.stringify({
          systemInstruction: { parts: [{ text: system }] },
          contents: [{ role: 'user', parts: [{ text: user }] }],
          generationConfig: { maxOutputTokens: maxTokens },
        }),
        ...(options.timeoutMs ? { signal: AbortSignal.timeout(options.timeoutMs) } : {}),
      });
      const raw = await res.text();
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // Not JSON (a proxy's error page): keep the text for the message.
      }
      if (!res.ok) {
        const inner = (body as { error?: { message?: string } } | undefined)?.error;
        throw new GeminiSummarizerError(
          res.status,
          inner ?? body,
          `${res.status} ${inner?.message ?? String(raw).slice(0, 300)}`,
        );
      }
      const parts =
        (body as { candidates?: Array<{ content?: { parts?: Array<{ text?: string }> } }> }).candidates?.[0]
          ?.content?.parts ?? [];
      const text = parts
        .map((p) => p.text ?? '')
        .join('')
        .trim();
      if (!text) throw new Error(`summarizer ${options.model} returned no text`);
      return text;
    },
  };
}

/** The sections every summary has, in order. */
export const SUMMARY_SECTIONS = [
  'Goal',
  'Constraints and user corrections',
  'Decisions',
  'Files and commands',
  'Open tasks',
  'Numbers',
] as const;

export const SUMMARY_SYSTEM = `You compress the middle of an agent conversation so the agent can keep working without it.
Write a summary with exactly these sections, as markdown headings, in this order:
${SUMMARY_SECTIONS.map((s) => `## ${s}`).join('\n')}
Rules:
- Goal: what the person wants, in their words where possible.
- Constraints and user corrections: every instruction or correction the person typed, quoted verbatim.
- Decisions: what was decided and why, one line each.
- Files and commands: every file path touched or read and every command run, with its outcome.
- Open tasks: what is unfinished, in order.
- Numbers: every number that may matter later (counts, sizes, versions, ids, line numbers, errors).
Write "none" under a section with nothing in it. Do not invent anything; leave out pleasantries.`;

export const MERGE_SYSTEM = `You merge partial summaries of consecutive stretches of one agent conversation into one summary.
Keep exactly the same sections in the same order; keep every quoted person instruction, file path,
command and number from every part; drop only exact duplicates; order items by when they happened;
a later part overrides an earlier one where they disagree (say so).`;

export interface SummarizeOptions {
  client: SummarizerClient;
  /**
   * The summarizer model's context window: chunks are sized so that prompt + `maxTokens` fit it.
   * Default: the window of the client model's profile (`resolveProfile(client.model)`).
   */
  window?: number;
  /** Tokens of a text as the summarizer counts them. Default: length / 3, rounded up (errs high). */
  estimateText?: (text: string) => number;
  /** Extra instructions from the person (`/compact focus on the API`). */
  instructions?: string;
  /** Length of each summary. Default 4,000 tokens. */
  maxTokens?: number;
}

export interface SummaryResult {
  text: string;
  /** Pieces the source was cut into (1 when it fit at once). */
  chunks: number;
  /** Model calls made, merges included (calls the provider refused as too long included). */
  calls: number;
  /** Times the summarizer answered "prompt is too long" and the rest was re-chunked. */
  overflows: number;
  /** Ids of the items summarized (earlier summaries covered by them left out). */
  source: string[];
}

const conservative = (text: string): number => Math.ceil(text.length / 3);

/**
 * The items a summary should read: compaction bookkeeping is dropped, and so is an earlier summary
 * whose covered stretch is itself in `items` (summarize from the record, not from the last summary).
 */
export function summarySource(items: readonly Item[]): Item[] {
  const ids = new Set(items.map((i) => i.id));
  return items.filter(
    (it) =>
      it.kind !== 'compaction' &&
      !(it.kind === 'summary' && it.covers && ids.has(it.covers.from) && ids.has(it.covers.to)),
  );
}

function userPrompt(
  body: string,
  instructions: string | undefined,
  part?: { index: number; of: number },
): string {
  const head = part
    ? `This is part ${part.index} of ${part.of} of the conversation, in order.`
    : 'This is the stretch of conversation to summarize.';
  const extra = instructions ? `\nThe person asks you to: ${instructions}\n` : '';
  return `${head}${extra}\n<conversation>\n${body}\n</conversation>`;
}

/** Splits transcript text into chunks of at most `budget` tokens, at item boundaries where possible. */
export function chunkTranscript(
  pieces: readonly string[],
  budget: number,
  estimate: (t: string) => number,
): string[] {
  return chunkPieces(pieces, budget, estimate).map((c) => c.join('\n'));
}

/** `chunkTranscript` keeping the pieces of each chunk, so the rest can be re-chunked after an overflow. */
function chunkPieces(pieces: readonly string[], budget: number, estimate: (t: string) => number): string[][] {
  if (budget < 16) throw new RangeError(`summarize: chunk budget ${budget} tokens is too small`);
  const chunks: string[][] = [];
  let current: string[] = [];
  let used = 0;
  const flush = () => {
    if (current.length) chunks.push(current);
    current = [];
    used = 0;
  };
  for (const piece of pieces) {
    const t = estimate(piece) + 1;
    if (t > budget) {
      // One item larger than a chunk: cut its text by characters in proportion to the estimate.
      flush();
      const step = Math.max(1, Math.floor((piece.length * budget) / t));
      for (let at = 0; at < piece.length; at += step) chunks.push([piece.slice(at, at + step)]);
      continue;
    }
    if (used + t > budget) flush();
    current.push(piece);
    used += t;
  }
  flush();
  return chunks;
}

/** Overflows of the summarizer tolerated in one summary before giving up. */
export const MAX_SUMMARIZER_OVERFLOWS = 4;

/** Thrown inside `summarize` when the provider refused a prompt as too long: re-chunk and retry. */
class Rechunk extends Error {}

/**
 * Summarizes `items` through `options.client`, chunking and merging when they do not fit at once.
 * Chunks are sized by the summarizer's window; if the summarizer still answers that the prompt is too
 * long, its own count (and limit, where the message gives one) corrects the estimate and the part not
 * yet summarized is re-chunked and retried, up to `MAX_SUMMARIZER_OVERFLOWS` times.
 */
export async function summarize(items: readonly Item[], options: SummarizeOptions): Promise<SummaryResult> {
  const base = options.estimateText ?? conservative;
  const maxTokens = options.maxTokens ?? 4000;
  let window = options.window ?? resolveProfile(options.client.model).profile.contextWindow;
  // Provider tokens per estimated token, learned from the summarizer's own overflow errors.
  let scale = 1;
  const estimate = (t: string): number => Math.ceil(base(t) * scale);
  const source = summarySource(items);
  const budget = (): number => {
    const overhead =
      estimate(SUMMARY_SYSTEM) + estimate(userPrompt('', options.instructions, { index: 99, of: 99 }));
    const b = window - maxTokens - overhead;
    if (b < 16) {
      throw new RangeError(
        `summarize: summarizer window ${window} leaves ${b} tokens for the source after ${maxTokens} output and ${overhead} prompt`,
      );
    }
    return b;
  };
  let chunks = chunkPieces(
    source.map((it) => formatItem(it)),
    budget(),
    estimate,
  );
  let calls = 0;
  let overflows = 0;
  const learn = (o: OverflowInfo, sent: number, err: unknown): void => {
    overflows++;
    if (overflows > MAX_SUMMARIZER_OVERFLOWS) {
      throw new Error(
        `summarize: the summarizer ${options.client.model} still overflows after ${MAX_SUMMARIZER_OVERFLOWS} re-chunks (window ${window}, estimate ×${scale.toFixed(2)}): ${o.message}`,
        { cause: err },
      );
    }
    const limitBit = o.limit !== undefined && o.limit < window;
    if (limitBit) window = o.limit!;
    // The provider's count of what we estimated as `sent`; without a count (OpenAI Responses), it
    // counted at least the room the prompt had.
    const theirs = o.measuredTokens ?? Math.max(window - maxTokens + 1, Math.ceil(sent * scale * 1.25));
    const ratio = theirs / Math.max(1, sent);
    scale = ratio > scale ? ratio * 1.02 : limitBit ? scale : scale * 1.1;
  };
  const call = async (system: string, user: string): Promise<string> => {
    calls++;
    try {
      return await options.client.complete({ system, user, maxTokens });
    } catch (err) {
      const o = parseOverflowError(err);
      if (!o) throw err;
      learn(o, base(system) + base(user), err);
      throw new Rechunk();
    }
  };
  if (chunks.length === 0) return { text: '', chunks: 0, calls: 0, overflows: 0, source: [] };
  let parts: string[] = [];
  for (let i = 0; i < chunks.length;) {
    const part = chunks.length > 1 ? { index: i + 1, of: chunks.length } : undefined;
    try {
      parts.push(await call(SUMMARY_SYSTEM, userPrompt(chunks[i]!.join('\n'), options.instructions, part)));
      i++;
    } catch (err) {
      if (!(err instanceof Rechunk)) throw err;
      // Parts already summarized stay; the rest is cut again with the corrected estimate.
      chunks = [...chunks.slice(0, i), ...chunkPieces(chunks.slice(i).flat(), budget(), estimate)];
    }
  }
  // Merge in groups that fit, until one summary is left.
  while (parts.length > 1) {
    const groups = chunkTranscript(
      parts.map((p, i) => `<part ${i + 1}>\n${p}\n</part>`),
      window - maxTokens - estimate(MERGE_SYSTEM) - 64,
      estimate,
    );
    if (groups.length >= parts.length) {
      throw new Error(
        `summarize: summaries of ${parts.length} parts do not fit the summarizer window ${window} to merge`,
      );
    }
    try {
      const merged: string[] = [];
      for (const g of groups) {
        merged.push(
          await call(
            MERGE_SYSTEM,
            `${options.instructions ? `The person asks you to: ${options.instructions}\n` : ''}${g}`,
          ),
        );
      }
      parts = merged;
    } catch (err) {
      if (!(err instanceof Rechunk)) throw err;
      // Group again with the corrected estimate.
    }
  }
  return { text: parts[0]!, chunks: chunks.length, calls, overflows, source: source.map((i) => i.id) };
}
