/**
 * The handler at every limit, exactly and one past (issue 18): text characters, pages, body bytes,
 * the page query, and the Content-Type check (which must not accept application/json hidden in a
 * parameter of another type).
 */
import { describe, expect, it } from 'vitest';
import { countPages } from '../../src/render/index.js';
import { createHandler, DEFAULT_LIMITS } from '../../src/serverless/index.js';
import { VISION_MODEL } from './fixtures.js';
import { BASE, post } from './cases.js';

async function outcome(r: Response): Promise<{ status: number; code?: string; message?: string }> {
  if (r.status === 200) return { status: 200 };
  const body = (await r.json()) as { error: { code: string; message: string } };
  return { status: r.status, code: body.error.code, message: body.error.message };
}

describe('limits, exactly and one past', () => {
  it('maxTextChars: the limit renders, one character more is 413 text_too_long', async () => {
    const h = createHandler({ limits: { maxTextChars: 50 } });
    expect(await outcome(await h(post({ model: VISION_MODEL, text: 'a'.repeat(50) })))).toEqual({
      status: 200,
    });
    expect(await outcome(await h(post({ model: VISION_MODEL, text: 'a'.repeat(51) })))).toEqual({
      status: 413,
      code: 'text_too_long',
      message: 'text is 51 characters; the limit is 50',
    });
  });

  it('maxPages: exactly the limit renders, one page more is 413 too_many_pages', async () => {
    const h = createHandler({ limits: { maxPages: 2 } });
    const ok = (await (await h(post({ model: VISION_MODEL, text: 'x', cell: '4x6' }))).json()) as {
      profile: { shape: { width: number; height: number; rows: number; cols: number } };
    };
    const shape = ok.profile.shape;
    // Exactly rows × 2 lines fill two pages; one line more needs a third.
    const two = Array.from({ length: shape.rows * 2 }, (_, i) => `line ${i}`).join('\n');
    const three = two + '\nlast';
    const opts = { shape: { width: shape.width, height: shape.height }, cell: '4x6' as const, scale: 1 };
    expect(countPages(two, opts).pages).toBe(2);
    expect(countPages(three, opts).pages).toBe(3);
    const r2 = await h(post({ model: VISION_MODEL, text: two, cell: '4x6' }));
    expect(r2.status).toBe(200);
    expect(((await r2.json()) as { pages: unknown[] }).pages).toHaveLength(2);
    const r3 = await outcome(await h(post({ model: VISION_MODEL, text: three, cell: '4x6' })));
    expect(r3).toMatchObject({ status: 413, code: 'too_many_pages' });
    expect(r3.message).toBe(
      `text needs 3 pages at ${shape.width}x${shape.height} (4x6, scale 1); the limit is 2`,
    );
  });

  it('maxBodyBytes: a body of exactly the limit is read, one byte more is 413 body_too_large', async () => {
    const body = JSON.stringify({ model: VISION_MODEL, text: 'hello' });
    const n = new TextEncoder().encode(body).length;
    const at = createHandler({ limits: { maxBodyBytes: n } });
    expect((await at(post(body, { raw: true }))).status).toBe(200);
    const under = createHandler({ limits: { maxBodyBytes: n - 1 } });
    expect(await outcome(await under(post(body, { raw: true })))).toMatchObject({
      status: 413,
      code: 'body_too_large',
    });
  });

  it('?page: the last page is served, the one after is 422, 0 and junk are 400', async () => {
    const h = createHandler();
    const text = 'The quick brown fox. '.repeat(4000);
    const all = (await (await h(post({ model: VISION_MODEL, text }))).json()) as {
      pages: { tokens: number; chars: number }[];
      tokens: number;
    };
    const n = all.pages.length;
    expect(n).toBeGreaterThan(1);
    const last = await h(post({ model: VISION_MODEL, text }, { path: `/v1/render?page=${n}` }));
    expect(last.status).toBe(200);
    expect(last.headers.get('content-type')).toBe('image/png');
    expect(last.headers.get('x-glyphfold-pages')).toBe(String(n));
    expect(last.headers.get('x-glyphfold-page-tokens')).toBe(String(all.pages[n - 1]!.tokens));
    expect(last.headers.get('x-glyphfold-page-chars')).toBe(String(all.pages[n - 1]!.chars));
    expect(last.headers.get('x-glyphfold-tokens')).toBe(String(all.tokens));
    expect(all.tokens).toBe(all.pages.reduce((s, p) => s + p.tokens, 0));
    expect(
      await outcome(await h(post({ model: VISION_MODEL, text }, { path: `/v1/render?page=${n + 1}` }))),
    ).toEqual({
      status: 422,
      code: 'page_out_of_range',
      message: `page ${n + 1} does not exist: the text fills ${n} page(s)`,
    });
    for (const bad of ['0', '01', '-1', '1.5', 'x', '1234567'])
      expect(
        await outcome(await h(post({ model: VISION_MODEL, text }, { path: `/v1/render?page=${bad}` }))),
      ).toMatchObject({
        status: 400,
        code: 'bad_request',
      });
    expect((await h(post({ model: VISION_MODEL, text }, { path: '/v1/render?page=123456' }))).status).toBe(
      422,
    );
  });
});

describe('Content-Type', () => {
  const h = createHandler();
  const send = (type: string | undefined) =>
    h(
      new Request(BASE + '/v1/render', {
        method: 'POST',
        headers: type === undefined ? {} : { 'content-type': type },
        body: JSON.stringify({ model: VISION_MODEL, text: 'hi' }),
      }),
    );
  for (const ok of [
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON',
    'application/vnd.api+json',
    'application/json ;charset=utf-8',
  ])
    it(`accepts ${ok}`, async () => expect((await send(ok)).status).toBe(200));
  for (const bad of [
    'text/plain; x=application/json',
    'text/plain',
    'application/jsonx',
    'application/x-json-stream',
    'multipart/form-data; boundary=application/json',
  ])
    it(`refuses ${JSON.stringify(bad)} with 415 naming it`, async () =>
      expect(await outcome(await send(bad))).toEqual({
        status: 415,
        code: 'unsupported_media_type',
        message: `Content-Type must be application/json, found ${bad}`,
      }));
});

describe('the profile in the response', () => {
  it('names the detail level where the rule has levels, and prices pages with it', async () => {
    const r = (await (await createHandler()(post({ model: 'gpt-4o', text: 'hello' }))).json()) as {
      pages: { tokens: number }[];
      profile: { shape: { detail?: string } };
    };
    expect(r.profile.shape.detail).toBe('high');
    const claude = (await (await createHandler()(post({ model: VISION_MODEL, text: 'hello' }))).json()) as {
      profile: { shape: Record<string, unknown>; note?: string };
    };
    expect('detail' in claude.profile.shape).toBe(false);
    expect('note' in claude.profile).toBe(false);
  });

  it('carries the note of a guessed profile', async () => {
    const r = (await (
      await createHandler()(post({ model: 'claude-future-9', text: 'hello', allowGuess: true }))
    ).json()) as { profile: { guessed: boolean; note?: string } };
    expect(r.profile.guessed).toBe(true);
    expect(typeof r.profile.note).toBe('string');
  });
});

describe('health', () => {
  it('reports the limits in force, the defaults merged with the overrides', async () => {
    const h = createHandler({ limits: { maxPages: 3 } });
    const r = await h(new Request(BASE + '/v1/health'));
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await r.json()).toEqual({ ok: true, limits: { ...DEFAULT_LIMITS, maxPages: 3 } });
    const head = await h(new Request(BASE + '/v1/health', { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await head.text()).toBe('');
    const wrong = await h(new Request(BASE + '/v1/health', { method: 'POST' }));
    expect(wrong.headers.get('allow')).toBe('GET, HEAD');
    expect(await outcome(wrong)).toEqual({
      status: 405,
      code: 'method_not_allowed',
      message: 'POST /v1/health is not allowed; use GET, HEAD',
    });
    expect(await outcome(await h(new Request(BASE + '/nope')))).toEqual({
      status: 404,
      code: 'not_found',
      message: 'no route /nope; routes: /v1/render, /v1/health',
    });
  });
});
