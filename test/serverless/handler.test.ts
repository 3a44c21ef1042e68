/**
 * Every route and every documented status of the serverless handler, called directly with Fetch
 * `Request`s (the same objects an edge runtime passes). The error table lives in cases.ts and also
 * runs over HTTP through the Node adapter.
 */
import { builtInLegibility } from '../../src/providers/legibility.js';
import type { CellName } from '../../src/render/cells.js';
import { describe, expect, it } from 'vitest';
import { decode as decodePng } from 'fast-png';
import { decode, normalize } from '../../src/render/index.js';
import { createHandler, handler, DEFAULT_LIMITS } from '../../src/serverless/index.js';
import { GUESSED_VISION_MODEL, TRANSCRIPT_MESSAGES, UNKNOWN_MODEL, VISION_MODEL } from './fixtures.js';
import { BASE, ERROR_CASES, post } from './cases.js';

async function errorOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, code: body.error.code, message: body.error.message };
}

const fromBase64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

const TEXT =
  'def main():\n\tprint("hello, pages")\n\n' + 'The quick brown fox jumps over the lazy dog. '.repeat(40);

describe('GET /v1/health', () => {
  it('answers HEAD with 200 and no body', async () => {
    const response = await handler(new Request(BASE + '/v1/health', { method: 'HEAD' }));
    expect(response.status).toBe(200);
    expect(response.body).toBeNull();
  });

  it('answers 200 with the limits in force', async () => {
    const response = await handler(new Request(BASE + '/v1/health'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, limits: DEFAULT_LIMITS });
  });
});

describe('POST /v1/render', () => {
  it('renders text into base64 PNG pages that decode back to the normalized text', async () => {
    const response = await handler(post({ text: TEXT, model: VISION_MODEL }));
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      pages: { width: number; height: number; chars: number; tokens: number; png: string }[];
      tokens: number;
      profile: { family: string; guessed: boolean; shape: { width: number; height: number; cell: string } };
    };
    expect(body.pages.length).toBeGreaterThanOrEqual(1);
    expect(body.profile.guessed).toBe(false);
    // No cell asked for: the smallest plain cell measured within the 1% legibility floor for the
    // model's reader family (claude here), from the shipped table.
    const legible = builtInLegibility()
      .variants.filter((e) => (e.cer['claude']?.cer ?? 1) <= 0.01)
      .map((e) => e.variant);
    expect(legible).toContain(body.profile.shape.cell);
    const pngs = body.pages.map((p) => fromBase64(p.png));
    for (const [i, page] of body.pages.entries()) {
      const image = decodePng(pngs[i]!);
      expect([image.width, image.height]).toEqual([page.width, page.height]);
      expect(page.width).toBe(body.profile.shape.width);
      expect(page.tokens).toBeGreaterThan(0);
    }
    expect(body.tokens).toBe(body.pages.reduce((s, p) => s + p.tokens, 0));
    expect(body.pages.reduce((s, p) => s + p.chars, 0)).toBeGreaterThan(0);
    expect(decode(pngs, { cell: body.profile.shape.cell as CellName })).toBe(normalize(TEXT));
  });

  it('honours cell and scale', async () => {
    const response = await handler(post({ text: TEXT, model: VISION_MODEL, cell: '6x10', scale: 2 }));
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      pages: { png: string }[];
      profile: { shape: { cell: string; scale: number; cols: number } };
    };
    expect(body.profile.shape).toMatchObject({ cell: '6x10', scale: 2 });
    expect(
      decode(
        body.pages.map((p) => fromBase64(p.png)),
        { cell: '6x10', scale: 2 },
      ),
    ).toBe(normalize(TEXT));
  });

  it('renders a posted transcript, as JSON text or as parsed JSON', async () => {
    for (const transcript of [JSON.stringify(TRANSCRIPT_MESSAGES), TRANSCRIPT_MESSAGES]) {
      const response = await handler(post({ transcript, model: VISION_MODEL }));
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        pages: { png: string }[];
        profile: { shape: { cell: string } };
      };
      const text = decode(
        body.pages.map((p) => fromBase64(p.png)),
        { cell: body.profile.shape.cell as CellName },
      );
      expect(text).toContain('list the files in src');
    }
  });

  it('passes the importer warnings on with the pages', async () => {
    const transcript = [
      { role: 'user', content: 'list the files' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
      },
      { role: 'user', content: 'never mind' },
    ];
    const response = await handler(post({ transcript, model: VISION_MODEL }));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { warnings?: string[] };
    expect(body.warnings?.join('\n')).toContain('call_1');
    const plain = (await (await handler(post({ text: 'x', model: VISION_MODEL }))).json()) as object;
    expect(plain).not.toHaveProperty('warnings');
  });

  it('returns one page as image/png with ?page=N', async () => {
    const json = (await (await handler(post({ text: TEXT, model: VISION_MODEL }))).json()) as {
      pages: { png: string }[];
    };
    const response = await handler(post({ text: TEXT, model: VISION_MODEL }, { path: '/v1/render?page=1' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('x-glyphfold-pages')).toBe(String(json.pages.length));
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(fromBase64(json.pages[0]!.png));
  });

  it('accepts a guessed profile only when asked', async () => {
    const refused = await errorOf(await handler(post({ text: TEXT, model: GUESSED_VISION_MODEL })));
    expect(refused).toMatchObject({ status: 422, code: 'unknown_model' });
    expect(refused.message).toContain(GUESSED_VISION_MODEL);
    expect(refused.message).toContain("the guess would be 'claude'");
    expect(refused.message).toContain('allowGuess');
    const accepted = await handler(post({ text: TEXT, model: GUESSED_VISION_MODEL, allowGuess: true }));
    expect(accepted.status).toBe(200);
    const body = (await accepted.json()) as { profile: { guessed: boolean; family: string } };
    expect(body.profile).toMatchObject({ guessed: true, family: 'claude' });
    const always = await createHandler({ allowGuess: true })(
      post({ text: TEXT, model: GUESSED_VISION_MODEL }),
    );
    expect(always.status).toBe(200);
  });

  it('a wholly unknown id guesses the conservative profile, which has no vision', async () => {
    const refused = await errorOf(await handler(post({ text: TEXT, model: UNKNOWN_MODEL })));
    expect(refused).toMatchObject({ status: 422, code: 'unknown_model' });
    const guessed = await errorOf(
      await handler(post({ text: TEXT, model: UNKNOWN_MODEL, allowGuess: true })),
    );
    expect(guessed).toMatchObject({ status: 422, code: 'no_vision' });
  });

  it('shrinks the page when a provider caps sides for many-image requests', async () => {
    // Opus 4.7's best page is taller than 2000 px; with more than 20 pages Anthropic caps sides at 2000.
    const one = (await (await handler(post({ text: 'x', model: 'claude-opus-4-7' }))).json()) as {
      profile: { shape: { width: number; height: number } };
    };
    expect(Math.max(one.profile.shape.width, one.profile.shape.height)).toBeGreaterThan(2000);
    const text = 'a line of text that wraps nowhere\n'.repeat(21 * 400);
    const response = await createHandler({ limits: { maxPages: 100 } })(
      post({ text, model: 'claude-opus-4-7' }),
    );
    expect(response.status).toBe(200);
    const many = (await response.json()) as {
      pages: unknown[];
      profile: { shape: { width: number; height: number } };
    };
    expect(many.pages.length).toBeGreaterThan(20);
    expect(Math.max(many.profile.shape.width, many.profile.shape.height)).toBeLessThanOrEqual(2000);
  });
});

describe('documented error statuses', () => {
  for (const c of ERROR_CASES) {
    it(`${c.name} → ${c.status} ${c.code}`, async () => {
      const response = await (c.limits ? createHandler({ limits: c.limits }) : handler)(c.request());
      const error = await errorOf(response);
      expect(error).toMatchObject({ status: c.status, code: c.code });
      expect(error.message.length).toBeGreaterThan(10);
    });
  }

  it('never routes to Object.prototype keys', async () => {
    const method = await handler(new Request(BASE + '/v1/health', { method: 'constructor' }));
    expect(method.status).toBe(405);
    const path = await handler(new Request(BASE + '/constructor'));
    expect(path.status).toBe(404);
  });

  it('names the allowed methods in the Allow header on 405', async () => {
    const response = await handler(new Request(BASE + '/v1/render', { method: 'PUT', body: '{}' }));
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('counts an oversized streamed body without trusting Content-Length', async () => {
    const small = createHandler({ limits: { maxBodyBytes: 1024 } });
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        // An endless upload: the handler must stop reading once past the cap.
        controller.enqueue(new TextEncoder().encode('{"text":"' + 'x'.repeat(300)));
      },
    });
    const request = new Request(BASE + '/v1/render', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(request.headers.get('content-length')).toBeNull();
    const error = await errorOf(await small(request));
    expect(error).toMatchObject({ status: 413, code: 'body_too_large' });
    expect(pulled).toBeLessThan(10);
  });
});
