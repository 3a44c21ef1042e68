/**
 * The real provider clients the probe talks through (`@anthropic-ai/sdk`, `openai`). One request per
 * run carries every page plus the question; token counting endpoints (free) measure the question
 * alone and the same content sent as text, so billed image tokens = input tokens − question tokens.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';

export interface ProbeCall {
  model: string;
  /** PNG bytes, one per page, in order. */
  pages: Uint8Array[];
  /** OpenAI image `detail` the profile asks for; Anthropic has none. */
  detail?: string;
  question: string;
  /** The document as text, for the text-token comparison. */
  contentText: string;
  maxOutputTokens: number;
  /** Also measure question and content tokens with the free counting endpoints (default true). */
  count?: boolean;
}

export interface ProbeReply {
  reply: string;
  /** Input tokens billed for the request with the pages (from usage). */
  inputTokens: number;
  outputTokens: number;
  /** Input tokens of the question alone (counting endpoint); undefined if it failed. */
  questionTokens?: number;
  /** Input tokens of the document sent as text instead of pages, without the question. */
  contentTextTokens?: number;
  /** Why a count is missing. */
  notes: string[];
}

export interface ProviderClient {
  provider: 'anthropic' | 'openai';
  ask(call: ProbeCall): Promise<ProbeReply>;
}

export interface ClientOptions {
  apiKey: string;
  /** Overrides the SDK's default endpoint (a gateway, a proxy, a local test server). */
  baseURL?: string;
}

const base64 = (png: Uint8Array) =>
  Buffer.from(png.buffer, png.byteOffset, png.byteLength).toString('base64');

/** The question alone and the content with it, by a counting endpoint, unless the call opts out. */
async function countBoth(
  call: ProbeCall,
  notes: string[],
  count: (text: string) => Promise<number>,
): Promise<{ questionTokens?: number | undefined; withContent?: number | undefined }> {
  if (call.count === false) return {};
  return {
    questionTokens: await counted('question', notes, () => count(call.question)),
    withContent: await counted('content as text', notes, () =>
      count(`${call.contentText}\n\n${call.question}`),
    ),
  };
}

async function counted(
  label: string,
  notes: string[],
  count: () => Promise<number>,
): Promise<number | undefined> {
  try {
    return await count();
  } catch (err) {
    notes.push(`${label} not counted: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

/**
 * The SDKs are optional peers: loaded on a probe's first call, with an error that says how to install
 * them (so the CLI, which imports this module, starts without them).
 */
async function sdk<T>(name: string, load: () => Promise<{ default: T }>): Promise<T> {
  try {
    return (await load()).default;
  } catch (err) {
    throw new Error(
      `the probe needs the '${name}' package (an optional peer dependency): npm install ${name}`,
      {
        cause: err,
      },
    );
  }
}

export function anthropicClient(options: ClientOptions): ProviderClient {
  let sdkClient: Anthropic | undefined;
  const connect = async (): Promise<Anthropic> => {
    const Sdk = await sdk('@anthropic-ai/sdk', () => import('@anthropic-ai/sdk'));
    return new Sdk({
      apiKey: options.apiKey,
      ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
      maxRetries: 1,
    });
  };
  return {
    provider: 'anthropic',
    async ask(call) {
      const client = (sdkClient ??= await connect());
      const message = await client.messages.create({
        model: call.model,
        max_tokens: call.maxOutputTokens,
        messages: [
          {
            role: 'user',
            content: [
              ...call.pages.map((png) => ({
                type: 'image' as const,
                source: { type: 'base64' as const, media_type: 'image/png' as const, data: base64(png) },
              })),
              { type: 'text' as const, text: call.question },
            ],
          },
        ],
      });
      const notes: string[] = [];
      const count = async (text: string) =>
        (
          await client.messages.countTokens({
            model: call.model,
            messages: [{ role: 'user', content: text }],
          })
        ).input_tokens;
      const { questionTokens, withContent } = await countBoth(call, notes, count);
      return {
        reply: message.content.map((b) => (b.type === 'text' ? b.text : '')).join(''),
        inputTokens: message.usage.input_tokens,
        outputTokens: message.usage.output_tokens,
        ...(questionTokens !== undefined ? { questionTokens } : {}),
        ...(questionTokens !== undefined && withContent !== undefined
          ? { contentTextTokens: withContent - questionTokens }
          : {}),
        notes,
      };
    },
  };
}

export function openaiClient(options: ClientOptions): ProviderClient {
  let sdkClient: OpenAI | undefined;
  const connect = async (): Promise<OpenAI> => {
    const Sdk = await sdk('openai', () => import('openai'));
    return new Sdk({
      apiKey: options.apiKey,
      ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
      maxRetries: 1,
    });
  };
  return {
    provider: 'openai',
    async ask(call) {
      const client = (sdkClient ??= await connect());
      const detail = (call.detail ?? 'auto') as 'low' | 'high' | 'auto' | 'original';
      const response = await client.responses.create({
        model: call.model,
        max_output_tokens: call.maxOutputTokens,
        input: [
          {
            role: 'user',
            content: [
              ...call.pages.map((png) => ({
                type: 'input_image' as const,
                image_url: `data:image/png;base64,${base64(png)}`,
                detail,
              })),
              { type: 'input_text' as const, text: call.question },
            ],
          },
        ],
      });
      const notes: string[] = [];
      const count = async (text: string) =>
        (await client.responses.inputTokens.count({ model: call.model, input: text })).input_tokens;
      const { questionTokens, withContent } = await countBoth(call, notes, count);
      if (!response.usage) notes.push('response carried no usage');
      return {
        reply: response.output_text,
        inputTokens: response.usage?.input_tokens ?? 0,
        outputTokens: response.usage?.output_tokens ?? 0,
        ...(questionTokens !== undefined ? { questionTokens } : {}),
        ...(questionTokens !== undefined && withContent !== undefined
          ? { contentTextTokens: withContent - questionTokens }
          : {}),
        notes,
      };
    },
  };
}
