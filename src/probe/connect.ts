/** Picks the provider client for a resolved profile, with the key from the environment. */
import { anthropicClient, openaiClient, type ProviderClient } from './clients.js';

/** No key for the provider: the CLI prints the message and exits 2. */
export class MissingKeyError extends Error {
  override name = 'MissingKeyError';
}

const KEYS = {
  anthropic: { env: 'ANTHROPIC_API_KEY', where: 'https://console.anthropic.com/settings/keys' },
  openai: { env: 'OPENAI_API_KEY', where: 'https://platform.openai.com/api-keys' },
} as const;

export interface ConnectOptions {
  provider: string;
  route: string;
  model: string;
  env: Readonly<Record<string, string | undefined>>;
  baseURL?: string;
}

export function connect(options: ConnectOptions): ProviderClient {
  const { provider, route, model } = options;
  if (provider === 'gemini') {
    throw new Error(
      `not implemented: the probe does not support Gemini yet (model '${model}'); probe a Claude or OpenAI model`,
    );
  }
  if (provider !== 'anthropic' && provider !== 'openai') {
    throw new Error(`the probe cannot reach provider '${provider}' of model '${model}'`);
  }
  // Gateways speak their own protocols and billing; the probe talks to the vendors' own APIs (or a
  // compatible endpoint given with --base-url).
  const direct = route === provider || route === 'unknown' || options.baseURL !== undefined;
  if (!direct) {
    throw new Error(
      `not implemented: probing through the ${route} route (model '${model}'); probe the vendor's own id, ` +
        `or pass --base-url to an endpoint that speaks the ${provider} API`,
    );
  }
  const { env, where } = KEYS[provider];
  const apiKey = options.env[env];
  if (!apiKey) {
    throw new MissingKeyError(
      `no API key for ${provider}: set ${env} in the environment (create one at ${where}), e.g.\n` +
        `  ${env}=… glyphfold probe --model ${model}\n` +
        `To use a compatible endpoint instead, add --base-url URL and set ${env} to the key it expects.`,
    );
  }
  const client = { apiKey, ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}) };
  return provider === 'anthropic' ? anthropicClient(client) : openaiClient(client);
}
