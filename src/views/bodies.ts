/**
 * The request bodies the wire views write, typed per provider.
 *
 * These are our own structural types, written from each API's reference and kept assignable to the
 * SDKs' request params (`@anthropic-ai/sdk` `MessageCreateParamsNonStreaming`, `openai`
 * `ChatCompletionCreateParamsNonStreaming`), so `client.messages.create(view.body)` compiles with no
 * cast and without glyphfold importing an SDK (they are optional peers). `test/types/` checks the
 * assignability against the installed SDKs under `tsc --strict`.
 */
import type { ImageData } from '../transcript/items.js';

/** The image formats every provider takes as base64. */
export type WireMediaType = ImageData['mediaType'];

// ---- Anthropic Messages (`POST /v1/messages`) ----

export interface AnthropicCacheControl {
  type: 'ephemeral';
}
export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  cache_control?: AnthropicCacheControl;
}
export interface AnthropicImageBlock {
  type: 'image';
  source: { type: 'base64'; media_type: WireMediaType; data: string };
  cache_control?: AnthropicCacheControl;
}
export interface AnthropicThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}
export interface AnthropicRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}
export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
  cache_control?: AnthropicCacheControl;
}
export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: Array<AnthropicTextBlock | AnthropicImageBlock>;
  is_error?: boolean;
  cache_control?: AnthropicCacheControl;
}
export type AnthropicContentBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock;
export interface AnthropicMessageParam {
  role: 'user' | 'assistant';
  content: AnthropicContentBlock[];
}
/** A tool's JSON Schema: the API wants an object schema (`type: 'object'`). */
export interface AnthropicInputSchema {
  type: 'object';
  [key: string]: unknown;
}
export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: AnthropicInputSchema;
  cache_control?: AnthropicCacheControl;
}
/** Assignable to `MessageCreateParamsNonStreaming` of `@anthropic-ai/sdk`. */
export interface AnthropicMessagesBody {
  model: string;
  max_tokens: number;
  system?: AnthropicTextBlock[];
  tools?: AnthropicTool[];
  messages: AnthropicMessageParam[];
}

// ---- OpenAI Chat Completions (`POST /v1/chat/completions`) ----

/** Chat Completions takes these three detail levels (`original` is a Responses level). */
export type OpenAIChatImageDetail = 'low' | 'high' | 'auto';
export interface OpenAIChatTextPart {
  type: 'text';
  text: string;
}
export interface OpenAIChatImagePart {
  type: 'image_url';
  image_url: { url: string; detail: OpenAIChatImageDetail };
}
export interface OpenAIChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}
export type OpenAIChatMessage =
  | { role: 'system'; content: string }
  | { role: 'developer'; content: string }
  | { role: 'user'; content: Array<OpenAIChatTextPart | OpenAIChatImagePart> }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAIChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };
export interface OpenAIChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}
/** Assignable to `ChatCompletionCreateParamsNonStreaming` of `openai`. */
export interface OpenAIChatBody {
  model: string;
  messages: OpenAIChatMessage[];
  tools?: OpenAIChatTool[];
  max_completion_tokens?: number;
}

// ---- OpenAI Responses (`POST /v1/responses`) ----

export type OpenAIResponsesImageDetail = 'low' | 'high' | 'auto' | 'original';
export interface OpenAIResponsesInputText {
  type: 'input_text';
  text: string;
}
export interface OpenAIResponsesInputImage {
  type: 'input_image';
  image_url: string;
  detail: OpenAIResponsesImageDetail;
}
export interface OpenAIResponsesMessage {
  type: 'message';
  role: 'user' | 'assistant';
  content: string | Array<OpenAIResponsesInputText | OpenAIResponsesInputImage>;
}
/**
 * Reasoning passed back. `id` (`rs_…`) is sent when the record kept it; the API takes reasoning
 * without it (Codex sends none), but the `openai` SDK's `ResponseReasoningItem` types it as required,
 * so a body is assignable to `ResponseCreateParamsNonStreaming` only through `OpenAIResponsesBody`'s
 * input when every reasoning item has one (see `hasReasoningIds`).
 */
export interface OpenAIResponsesReasoning {
  type: 'reasoning';
  id?: string;
  summary: Array<{ type: 'summary_text'; text: string }>;
  encrypted_content?: string;
}
export interface OpenAIResponsesFunctionCall {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
}
export interface OpenAIResponsesFunctionCallOutput {
  type: 'function_call_output';
  call_id: string;
  output: string | Array<OpenAIResponsesInputText | OpenAIResponsesInputImage>;
}
export type OpenAIResponsesInputItem =
  | OpenAIResponsesMessage
  | OpenAIResponsesReasoning
  | OpenAIResponsesFunctionCall
  | OpenAIResponsesFunctionCallOutput;
export interface OpenAIResponsesTool {
  type: 'function';
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}
/** The Responses body; assignable to the SDK's params once reasoning ids are known (`hasReasoningIds`). */
export interface OpenAIResponsesBody<Input extends OpenAIResponsesInputItem = OpenAIResponsesInputItem> {
  model: string;
  instructions?: string;
  previous_response_id?: string;
  input: Input[];
  tools?: OpenAIResponsesTool[];
  max_output_tokens?: number;
}
/** A Responses input item whose reasoning carries its id: what the `openai` SDK's types accept. */
export type OpenAIResponsesInputItemWithIds =
  Exclude<OpenAIResponsesInputItem, OpenAIResponsesReasoning> | (OpenAIResponsesReasoning & { id: string });

/**
 * Narrows a Responses body to one whose reasoning items all carry an id, which makes it assignable to
 * the `openai` SDK's `ResponseCreateParamsNonStreaming`. False when some reasoning came without its
 * `rs_…` id (Codex rollouts): the API accepts that body, the SDK's type does not; send it with
 * `fetch`, or through the SDK with your own cast.
 */
export function hasReasoningIds(
  body: OpenAIResponsesBody,
): body is OpenAIResponsesBody<OpenAIResponsesInputItemWithIds> {
  return body.input.every((i) => i.type !== 'reasoning' || typeof i.id === 'string');
}

// ---- Gemini generateContent (`POST /v1beta/models/{model}:generateContent`) ----

export type GeminiPart =
  | { text: string; thought?: boolean; thoughtSignature?: string }
  | { inlineData: { mimeType: WireMediaType; data: string } }
  | {
      functionCall: { id: string; name: string; args: Record<string, unknown> };
      thoughtSignature?: string;
    }
  | {
      functionResponse: { id: string; name: string; response: { output: string } | { error: string } };
    };
export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}
export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
}
/**
 * The REST body of `generateContent` (the model is in the URL). `@google/genai`'s
 * `GenerateContentParameters` is a different shape (model in the body, system and tools under
 * `config`): POST this body with `fetch`, as `geminiSummarizer` does.
 */
export interface GeminiBody {
  systemInstruction?: { parts: Array<{ text: string }> };
  contents: GeminiContent[];
  tools?: Array<{ functionDeclarations: GeminiFunctionDeclaration[] }>;
  generationConfig?: { maxOutputTokens: number };
}

/** Provider → the body its wire view writes. */
export interface WireBodies {
  anthropic: AnthropicMessagesBody;
  'openai-chat': OpenAIChatBody;
  'openai-responses': OpenAIResponsesBody;
  gemini: GeminiBody;
}

/** Any provider's body. */
export type WireBody = WireBodies[keyof WireBodies];
