/**
 * Importers: other harnesses' transcripts → glyphfold items (a linear path root → tip).
 * Pure functions, no I/O: the caller reads the file and passes its text (or parsed JSON).
 */
import { importAnthropic, looksAnthropic } from './anthropic.js';
import { isRecord, type ImportFormat, type ImportOptions, type ImportResult } from './build.js';
import { importClaudeCode, looksClaudeCode } from './claude-code.js';
import { importCodex, looksCodex } from './codex.js';
import { checkTextDepth, checkValueDepth } from './depth.js';
import { importGlyphfold, looksGlyphfold } from './glyphfold.js';
import { importLangChain, looksLangChain } from './langchain.js';
import { hasOpenAIChatSignal, importOpenAIChat, looksOpenAIChat } from './openai-chat.js';
import { importSweAgent, looksSweAgent } from './swe-agent.js';
import { importVercelAI, looksVercelAI } from './vercel-ai.js';

export type {
  ImportedAgent,
  ImportedCheckpoint,
  ImportFormat,
  ImportOptions,
  ImportResult,
} from './build.js';
export { pairingWarnings } from './build.js';
export {
  classifyClaudeCodeText,
  claudeCodeAgentName,
  importClaudeCodeSession,
  type ClaudeCodeSession,
} from './claude-code.js';
export { MAX_IMPORT_DEPTH } from './depth.js';

export const IMPORT_FORMATS: readonly ImportFormat[] = [
  'claude-code',
  'codex',
  'openai-chat',
  'anthropic',
  'vercel-ai',
  'langchain',
  'swe-agent',
  'glyphfold',
];

const JSONL_FORMATS = new Set<ImportFormat>(['claude-code', 'codex', 'glyphfold']);

/** Parses text as one JSON document if it is one (a messages array or object), else `undefined`. */
function wholeJson(text: string): unknown {
  const t = text.trim();
  if (!(t.startsWith('[') || t.startsWith('{'))) return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined; // JSONL: several documents, one per line
  }
}

/** The first lines of a JSONL text that parse, for detection only. */
function sampleLines(text: string, max = 200): unknown[] {
  const out: unknown[] = [];
  for (const line of text.split('\n')) {
    if (out.length >= max) break;
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // detection looks at what parses; the importer reports bad lines with their numbers
    }
  }
  return out;
}

/**
 * Works out which format `input` is in. Text is tried as JSONL (Claude Code, Codex, glyphfold) and as
 * one JSON document (Vercel AI SDK, LangChain, SWE-agent, OpenAI Chat, Anthropic); throws naming every
 * format tried when none fits.
 */
export function detectFormat(input: string | unknown): ImportFormat {
  let doc: unknown = input;
  if (typeof input === 'string') {
    doc = wholeJson(input);
    const lines = doc !== undefined && !Array.isArray(doc) && !isRecord(doc) ? [] : sampleLines(input);
    const single =
      doc !== undefined && !Array.isArray(doc) && !(isRecord(doc) && Array.isArray(doc.messages));
    if (doc === undefined || single) {
      if (looksClaudeCode(lines)) return 'claude-code';
      if (looksCodex(lines)) return 'codex';
      if (looksGlyphfold(lines)) return 'glyphfold';
    }
  }
  if (doc !== undefined) {
    // The AI SDK's roles are a subset of Chat Completions': its own part types decide before either.
    if (looksVercelAI(doc)) return 'vercel-ai';
    if (looksLangChain(doc)) return 'langchain';
    if (looksSweAgent(doc)) return 'swe-agent';
    if (looksOpenAIChat(doc) && (hasOpenAIChatSignal(doc) || !looksAnthropic(doc))) return 'openai-chat';
    if (looksAnthropic(doc)) return 'anthropic';
    if (looksOpenAIChat(doc)) return 'openai-chat';
  }
  const found =
    typeof input === 'string'
      ? input.trim() === ''
        ? 'empty text'
        : `text starting ${JSON.stringify(input.trim().slice(0, 60))}`
      : Array.isArray(input)
        ? `an array of ${input.length}`
        : isRecord(input)
          ? `an object with keys ${Object.keys(input).slice(0, 8).join(', ') || '(none)'}`
          : typeof input;
  throw new Error(
    `import: could not detect the format; tried claude-code (JSONL entries with uuid/parentUuid), codex (JSONL ` +
      `{type, payload} with session_meta/response_item), glyphfold (JSONL items), openai-chat (messages with ` +
      `role system|user|assistant|tool), anthropic (messages with role user|assistant and content blocks), ` +
      `vercel-ai (ModelMessage parts tool-call/tool-result/reasoning/image/file), langchain ({lc: 1, type: 'constructor', ` +
      `id, kwargs} or {type: 'human'|'ai'|…, data}) and swe-agent (.traj {history, trajectory}); found ${found}`,
  );
}

/**
 * Imports a transcript from another harness. `input` is the file's text, or already-parsed JSON for
 * the array formats. Same input and options → same items and ids. A leading UTF-8 byte-order mark is
 * ignored; nesting deeper than `MAX_IMPORT_DEPTH` and input that yields no item are errors.
 */
export function importTranscript(input: string | unknown, options: ImportOptions = {}): ImportResult {
  const result = importAny(input, options);
  if (result.items.length === 0) {
    const why =
      result.warnings.length > 0 ? `; the importer noted: ${result.warnings.slice(0, 5).join('; ')}` : '';
    throw new Error(`import: the ${result.format} input holds no items to import${why}`);
  }
  return result;
}

function importAny(input: string | unknown, options: ImportOptions): ImportResult {
  // A UTF-8 byte-order mark (editors on Windows write one) is not part of the JSON.
  if (typeof input === 'string' && input.charCodeAt(0) === 0xfeff) input = input.slice(1);
  if (typeof input === 'string') checkTextDepth(input);
  else checkValueDepth(input);
  const format = options.format ?? detectFormat(input);
  if (!IMPORT_FORMATS.includes(format)) {
    throw new Error(
      `import: unknown format ${JSON.stringify(format)}; expected one of ${IMPORT_FORMATS.join(', ')}`,
    );
  }
  if (JSONL_FORMATS.has(format)) {
    if (typeof input !== 'string')
      throw new Error(`import: format ${format} is JSONL text; expected a string, found ${typeof input}`);
    if (format === 'claude-code') return importClaudeCode(input, options);
    if (format === 'codex') return importCodex(input, options);
    return importGlyphfold(input, options);
  }
  let doc = input;
  if (typeof input === 'string') {
    try {
      doc = JSON.parse(input) as unknown;
    } catch (error) {
      throw new Error(
        `${format}: expected one JSON document, the input is not valid JSON (${(error as Error).message})`,
        { cause: error },
      );
    }
  }
  switch (format) {
    case 'openai-chat':
      return importOpenAIChat(doc, options);
    case 'vercel-ai':
      return importVercelAI(doc, options);
    case 'langchain':
      return importLangChain(doc, options);
    case 'swe-agent':
      return importSweAgent(doc, options);
    default:
      return importAnthropic(doc, options);
  }
}
export {
  anthropicResponseItems,
  openaiChatResponseItems,
  openaiResponsesItems,
  geminiResponseItems,
} from './responses.js';
export {
  anthropicStream,
  openaiChatStream,
  openaiResponsesStream,
  geminiStream,
  StreamEventError,
  IncompleteStreamError,
  type StreamAccumulator,
  type AnthropicStreamEvent,
  type AnthropicStreamMessage,
  type OpenAIChatChunk,
  type OpenAIChatStreamCompletion,
  type OpenAIResponsesStreamEvent,
  type OpenAIResponsesStreamResponse,
  type GeminiStreamChunk,
  type GeminiStreamResponse,
} from './streams.js';
