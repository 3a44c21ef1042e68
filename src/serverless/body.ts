/** Reading a request body with a byte cap, and parsing it as JSON. */
import { HttpError } from './errors.js';

/**
 * Reads the whole body, failing with 413 as soon as more than `maxBytes` arrive. Content-Length is
 * checked first only as a shortcut: a client can lie or stream without it, so the stream is counted too.
 */
export async function readBody(request: Request, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = (found: string) =>
    new HttpError(413, 'body_too_large', `request body exceeds ${maxBytes} bytes (found ${found})`);
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > maxBytes) {
    throw tooLarge(`Content-Length ${declared}`);
  }
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let step: Awaited<ReturnType<typeof reader.read>>;
    try {
      step = await reader.read();
    } catch (err) {
      // The client's side failed (a disconnect mid-upload): not a server error, and nobody to answer.
      throw new HttpError(400, 'bad_request', `request body could not be read: ${(err as Error).message}`);
    }
    const { done, value } = step;
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      // Stop reading: the rest of an oversized upload is never buffered.
      await reader.cancel().catch(() => undefined);
      throw tooLarge(`more than ${maxBytes} bytes in the stream`);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Decodes UTF-8 strictly and parses JSON; both failures are a 400 `bad_json` naming the position. */
export function parseJson(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HttpError(400, 'bad_json', 'request body is not valid UTF-8');
  }
  if (text.trim() === '')
    throw new HttpError(400, 'bad_json', 'request body is empty: expected a JSON object');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new HttpError(400, 'bad_json', `request body is not valid JSON: ${(err as Error).message}`);
  }
}
