/**
 * Stream event sequences as each provider sends them, for the stream-fold tests: one reply (a list of
 * blocks) spelled as Anthropic Messages events, Chat Completions chunks, Responses events and Gemini
 * `streamGenerateContent` chunks, with every streamed text cut into pieces where `cut` says; the same
 * reply as each non-streaming API returns it; and SSE framing of the events. Shapes follow the
 * providers' streaming docs (Anthropic "Streaming Messages", OpenAI "Streaming API responses" and the
 * Responses streaming events reference, Gemini `streamGenerateContent` with `alt=sse`).
 */
import { rng } from '../../src/probe/random.js';

/** One block of a reply. */
export type Block =
  | { kind: 'thinking'; text: string; signature: string }
  | { kind: 'redacted'; data: string }
  | { kind: 'text'; text: string }
  | { kind: 'tool'; id: string; name: string; input: Record<string, unknown> };

/** Where to cut a string into streamed pieces: the pieces, in order, joined back give the string. */
export type Cutter = (text: string) => string[];

/** A seeded cutter: pieces of 1–`max` code points (providers never split a code point). */
export function seededCutter(seed: number, max = 6): Cutter {
  const next = rng(seed).next;
  return (text) => {
    const points = Array.from(text);
    const pieces: string[] = [];
    for (let i = 0; i < points.length;) {
      const n = 1 + Math.floor(next() * max);
      pieces.push(points.slice(i, i + n).join(''));
      i += n;
    }
    return pieces;
  };
}

/** `count` distinct byte offsets inside `length`, sorted (seeded): where to cut a body on the socket. */
export function seededByteCuts(seed: number, length: number, count: number): number[] {
  const next = rng(seed).next;
  const cuts = new Set<number>();
  while (cuts.size < Math.min(count, length - 1)) cuts.add(1 + Math.floor(next() * (length - 1)));
  return [...cuts].sort((x, y) => x - y);
}

/** SSE framing: `event:` (when the provider names events) and one `data:` line, a blank line after. */
export function sse(events: readonly unknown[], options: { named?: boolean; done?: boolean } = {}): string {
  let out = '';
  for (const e of events) {
    if (options.named) out += `event: ${(e as { type: string }).type}\n`;
    out += `data: ${JSON.stringify(e)}\n\n`;
  }
  if (options.done) out += 'data: [DONE]\n\n';
  return out;
}

// ─── Anthropic ───────────────────────────────────────────────────────────────────────────────────

const USAGE_IN = {
  input_tokens: 472,
  output_tokens: 2,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

function anthropicBlock(b: Block): Record<string, unknown> {
  switch (b.kind) {
    case 'thinking':
      return { type: 'thinking', thinking: b.text, signature: b.signature };
    case 'redacted':
      return { type: 'redacted_thinking', data: b.data };
    case 'text':
      return { type: 'text', text: b.text, citations: null };
    case 'tool':
      return { type: 'tool_use', id: b.id, name: b.name, input: b.input };
  }
}

/** The `Message` `messages.create` returns for these blocks. */
export function anthropicMessage(blocks: readonly Block[]): Record<string, unknown> & { content: unknown[] } {
  return {
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: blocks.map(anthropicBlock),
    stop_reason: blocks.some((b) => b.kind === 'tool') ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { ...USAGE_IN, output_tokens: 89 },
  };
}

/** The raw events of `messages.create({ stream: true })` for these blocks. */
export function anthropicEvents(blocks: readonly Block[], cut: Cutter): Array<Record<string, unknown>> {
  const final = anthropicMessage(blocks);
  const events: Array<Record<string, unknown>> = [
    {
      type: 'message_start',
      message: { ...final, content: [], stop_reason: null, stop_sequence: null, usage: USAGE_IN },
    },
  ];
  blocks.forEach((b, index) => {
    const delta = (d: Record<string, unknown>): void => {
      events.push({ type: 'content_block_delta', index, delta: d });
    };
    switch (b.kind) {
      case 'thinking':
        events.push({
          type: 'content_block_start',
          index,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        });
        for (const piece of cut(b.text)) delta({ type: 'thinking_delta', thinking: piece });
        delta({ type: 'signature_delta', signature: b.signature });
        break;
      case 'redacted':
        events.push({
          type: 'content_block_start',
          index,
          content_block: { type: 'redacted_thinking', data: b.data },
        });
        break;
      case 'text':
        events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        if (index === 0) events.push({ type: 'ping' });
        for (const piece of cut(b.text)) delta({ type: 'text_delta', text: piece });
        break;
      case 'tool':
        events.push({
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} },
        });
        for (const piece of cut(JSON.stringify(b.input)))
          delta({ type: 'input_json_delta', partial_json: piece });
        break;
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({
    type: 'message_delta',
    delta: { stop_reason: final.stop_reason, stop_sequence: null },
    usage: { output_tokens: 89 },
  });
  events.push({ type: 'message_stop' });
  return events;
}

// ─── OpenAI Chat Completions ─────────────────────────────────────────────────────────────────────

/** Chat Completions has one content string per message: texts joined, reasoning (compat servers) too. */
function chatParts(blocks: readonly Block[]) {
  return {
    reasoning: blocks.flatMap((b) => (b.kind === 'thinking' ? [b.text] : [])).join(''),
    content: blocks.flatMap((b) => (b.kind === 'text' ? [b.text] : [])).join(''),
    tools: blocks.flatMap((b) => (b.kind === 'tool' ? [b] : [])),
  };
}

const CHAT_HEAD = { id: 'chatcmpl-1', created: 1764500000, model: 'gpt-5.1', system_fingerprint: 'fp_1' };
const CHAT_USAGE = { prompt_tokens: 81, completion_tokens: 27, total_tokens: 108 };

/** The `ChatCompletion` `chat.completions.create` returns for these blocks. */
export function chatCompletion(blocks: readonly Block[]): {
  [key: string]: unknown;
  choices: Array<{ index: number; message: unknown; finish_reason: string; logprobs: null }>;
} {
  const { reasoning, content, tools } = chatParts(blocks);
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: content === '' ? null : content,
    refusal: null,
  };
  if (reasoning !== '') message.reasoning_content = reasoning;
  if (tools.length)
    message.tool_calls = tools.map((t) => ({
      id: t.id,
      type: 'function',
      function: { name: t.name, arguments: JSON.stringify(t.input) },
    }));
  return {
    ...CHAT_HEAD,
    object: 'chat.completion',
    choices: [{ index: 0, message, finish_reason: tools.length ? 'tool_calls' : 'stop', logprobs: null }],
    usage: CHAT_USAGE,
  };
}

/** The chunks of `chat.completions.create({ stream: true, stream_options: { include_usage: true } })`. */
export function chatChunks(blocks: readonly Block[], cut: Cutter): Array<Record<string, unknown>> {
  const { reasoning, content, tools } = chatParts(blocks);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): Record<string, unknown> => ({
    ...CHAT_HEAD,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const chunks = [chunk({ role: 'assistant', content: '', refusal: null })];
  if (reasoning !== '') for (const piece of cut(reasoning)) chunks.push(chunk({ reasoning_content: piece }));
  if (content !== '') for (const piece of cut(content)) chunks.push(chunk({ content: piece }));
  tools.forEach((t, index) => {
    chunks.push(
      chunk({
        tool_calls: [{ index, id: t.id, type: 'function', function: { name: t.name, arguments: '' } }],
      }),
    );
    for (const piece of cut(JSON.stringify(t.input)))
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  chunks.push(chunk({}, tools.length ? 'tool_calls' : 'stop'));
  chunks.push({ ...CHAT_HEAD, object: 'chat.completion.chunk', choices: [], usage: CHAT_USAGE });
  return chunks;
}

// ─── OpenAI Responses ────────────────────────────────────────────────────────────────────────────

function responsesItem(b: Block, i: number): Record<string, unknown> {
  switch (b.kind) {
    case 'thinking':
      return {
        id: `rs_${i}`,
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: b.text }],
        encrypted_content: b.signature,
      };
    case 'redacted':
      return { id: `rs_${i}`, type: 'reasoning', summary: [], encrypted_content: b.data };
    case 'text':
      return {
        id: `msg_${i}`,
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: b.text, annotations: [], logprobs: [] }],
      };
    case 'tool':
      return {
        id: `fc_${i}`,
        type: 'function_call',
        status: 'completed',
        call_id: b.id,
        name: b.name,
        arguments: JSON.stringify(b.input),
      };
  }
}

const RESPONSE_HEAD = {
  id: 'resp_1',
  object: 'response',
  created_at: 1764500000,
  model: 'gpt-5.1',
  parallel_tool_calls: true,
  tool_choice: 'auto',
  tools: [],
  temperature: 1,
  top_p: 1,
  metadata: {},
  instructions: null,
  error: null,
  incomplete_details: null,
};
const RESPONSE_USAGE = {
  input_tokens: 81,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 27,
  output_tokens_details: { reasoning_tokens: 12 },
  total_tokens: 108,
};

/** The `Response` `responses.create` returns for these blocks. */
export function responsesResponse(blocks: readonly Block[]): Record<string, unknown> & { output: unknown[] } {
  return { ...RESPONSE_HEAD, status: 'completed', output: blocks.map(responsesItem), usage: RESPONSE_USAGE };
}

/** The events of `responses.create({ stream: true, include: ['reasoning.encrypted_content'] })`. */
export function responsesEvents(blocks: readonly Block[], cut: Cutter): Array<Record<string, unknown>> {
  const events: Array<Record<string, unknown>> = [];
  const add = (e: Record<string, unknown>): void => {
    events.push({ ...e, sequence_number: events.length });
  };
  const pending = { ...RESPONSE_HEAD, status: 'in_progress', output: [], usage: null };
  add({ type: 'response.created', response: pending });
  add({ type: 'response.in_progress', response: pending });
  blocks.forEach((b, output_index) => {
    const item = responsesItem(b, output_index);
    const item_id = item.id;
    switch (b.kind) {
      case 'thinking':
      case 'redacted': {
        add({
          type: 'response.output_item.added',
          output_index,
          item: { id: item_id, type: 'reasoning', summary: [] },
        });
        if (b.kind === 'thinking') {
          const part = { type: 'summary_text', text: '' };
          add({
            type: 'response.reasoning_summary_part.added',
            item_id,
            output_index,
            summary_index: 0,
            part,
          });
          for (const delta of cut(b.text))
            add({
              type: 'response.reasoning_summary_text.delta',
              item_id,
              output_index,
              summary_index: 0,
              delta,
            });
          add({
            type: 'response.reasoning_summary_text.done',
            item_id,
            output_index,
            summary_index: 0,
            text: b.text,
          });
          add({
            type: 'response.reasoning_summary_part.done',
            item_id,
            output_index,
            summary_index: 0,
            part: { type: 'summary_text', text: b.text },
          });
        }
        break;
      }
      case 'text': {
        const open = { id: item_id, type: 'message', status: 'in_progress', role: 'assistant', content: [] };
        add({ type: 'response.output_item.added', output_index, item: open });
        const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
        add({ type: 'response.content_part.added', item_id, output_index, content_index: 0, part });
        for (const delta of cut(b.text))
          add({
            type: 'response.output_text.delta',
            item_id,
            output_index,
            content_index: 0,
            delta,
            logprobs: [],
          });
        add({
          type: 'response.output_text.done',
          item_id,
          output_index,
          content_index: 0,
          text: b.text,
          logprobs: [],
        });
        add({
          type: 'response.content_part.done',
          item_id,
          output_index,
          content_index: 0,
          part: { ...part, text: b.text },
        });
        break;
      }
      case 'tool': {
        const open = { ...item, status: 'in_progress', arguments: '' };
        add({ type: 'response.output_item.added', output_index, item: open });
        for (const delta of cut(JSON.stringify(b.input)))
          add({ type: 'response.function_call_arguments.delta', item_id, output_index, delta });
        add({
          type: 'response.function_call_arguments.done',
          item_id,
          output_index,
          arguments: JSON.stringify(b.input),
        });
        break;
      }
    }
    add({ type: 'response.output_item.done', output_index, item });
  });
  add({ type: 'response.completed', response: responsesResponse(blocks) });
  return events;
}

// ─── Gemini ──────────────────────────────────────────────────────────────────────────────────────

function geminiPart(b: Block): Record<string, unknown> {
  switch (b.kind) {
    case 'thinking':
      return { text: b.text, thought: true, thoughtSignature: b.signature };
    case 'redacted':
      throw new Error('Gemini has no redacted thinking');
    case 'text':
      return { text: b.text };
    case 'tool':
      return { functionCall: { id: b.id, name: b.name, args: b.input } };
  }
}

const GEMINI_USAGE = {
  promptTokenCount: 81,
  candidatesTokenCount: 27,
  thoughtsTokenCount: 12,
  totalTokenCount: 120,
};

/** The `GenerateContentResponse` `generateContent` returns for these blocks (no redacted blocks). */
export function geminiResponse(blocks: readonly Block[]): {
  [key: string]: unknown;
  candidates: Array<{ content: { role: string; parts: unknown[] }; finishReason: string; index: number }>;
} {
  return {
    candidates: [
      { content: { role: 'model', parts: blocks.map(geminiPart) }, finishReason: 'STOP', index: 0 },
    ],
    usageMetadata: GEMINI_USAGE,
    modelVersion: 'gemini-3-pro',
    responseId: 'r-1',
  };
}

/**
 * The chunks of `streamGenerateContent?alt=sse`: text in pieces, one per chunk; a thought's signature
 * on its first piece or on an empty piece after its last (`signatureLast`), as streams send it; a
 * function call whole in its chunk; `finishReason` and the usage totals on the last chunk.
 */
export function geminiChunks(
  blocks: readonly Block[],
  cut: Cutter,
  signatureLast = true,
): Array<Record<string, unknown>> {
  const chunk = (parts: unknown[]): Record<string, unknown> => ({
    candidates: [{ content: { role: 'model', parts }, index: 0 }],
    usageMetadata: { promptTokenCount: 81, totalTokenCount: 81 },
    modelVersion: 'gemini-3-pro',
    responseId: 'r-1',
  });
  const chunks: Array<Record<string, unknown>> = [];
  for (const b of blocks) {
    if (b.kind === 'tool' || b.kind === 'redacted') {
      chunks.push(chunk([geminiPart(b)]));
      continue;
    }
    const thought = b.kind === 'thinking' ? { thought: true } : {};
    cut(b.text).forEach((text, i) => {
      const sign =
        b.kind === 'thinking' && i === 0 && !signatureLast ? { thoughtSignature: b.signature } : {};
      chunks.push(chunk([{ text, ...thought, ...sign }]));
    });
    if (b.kind === 'thinking' && signatureLast)
      chunks.push(chunk([{ text: '', thought: true, thoughtSignature: b.signature }]));
  }
  chunks.push({
    candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: GEMINI_USAGE,
    modelVersion: 'gemini-3-pro',
    responseId: 'r-1',
  });
  return chunks;
}
