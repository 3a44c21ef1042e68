/**
 * The documented error statuses as data, run against every implementation of the route table: the
 * handler called directly (handler.test.ts) and the same handler behind the Node adapter over
 * loopback (node-adapter.test.ts). Like Hono's `common.case.test.ts`: one table, many runners.
 */
import { DEFAULT_LIMITS, type Limits } from '../../src/serverless/index.js';
import { NO_VISION_MODEL, UNKNOWN_MODEL, VISION_MODEL } from './fixtures.js';

export const BASE = 'http://glyphfold.test';

export function post(
  body: unknown,
  init: { path?: string; headers?: Record<string, string>; raw?: boolean } = {},
): Request {
  return new Request(BASE + (init.path ?? '/v1/render'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: init.raw ? (body as string) : JSON.stringify(body),
  });
}

export const ERROR_CASES: {
  name: string;
  request: () => Request;
  status: number;
  code: string;
  /** Limits of the handler under test, when not the defaults. */
  limits?: Partial<Limits>;
}[] = [
  {
    name: 'unknown route',
    request: () => new Request(BASE + '/v1/nothing'),
    status: 404,
    code: 'not_found',
  },
  {
    name: 'wrong method on render',
    request: () => new Request(BASE + '/v1/render'),
    status: 405,
    code: 'method_not_allowed',
  },
  {
    name: 'wrong method on health',
    request: () => new Request(BASE + '/v1/health', { method: 'DELETE' }),
    status: 405,
    code: 'method_not_allowed',
  },
  { name: 'bad JSON', request: () => post('{"text": "a", ', { raw: true }), status: 400, code: 'bad_json' },
  { name: 'empty body', request: () => post('', { raw: true }), status: 400, code: 'bad_json' },
  {
    name: 'invalid UTF-8',
    request: () =>
      new Request(BASE + '/v1/render', { method: 'POST', body: new Uint8Array([0x7b, 0xff, 0x7d]) }),
    status: 400,
    code: 'bad_json',
  },
  { name: 'JSON that is not an object', request: () => post([1, 2]), status: 400, code: 'bad_request' },
  { name: 'missing model', request: () => post({ text: 'hi' }), status: 400, code: 'bad_request' },
  {
    name: 'text not a string',
    request: () => post({ text: 5, model: VISION_MODEL }),
    status: 400,
    code: 'bad_request',
  },
  {
    name: 'both text and transcript',
    request: () => post({ text: 'a', transcript: 'b', model: VISION_MODEL }),
    status: 400,
    code: 'bad_request',
  },
  {
    name: 'bad cell',
    request: () => post({ text: 'a', model: VISION_MODEL, cell: '7x7' }),
    status: 400,
    code: 'bad_request',
  },
  {
    name: 'bad scale',
    request: () => post({ text: 'a', model: VISION_MODEL, scale: 1.5 }),
    status: 400,
    code: 'bad_request',
  },
  {
    name: 'unknown field',
    request: () => post({ text: 'a', model: VISION_MODEL, colour: 'red' }),
    status: 400,
    code: 'bad_request',
  },
  {
    name: 'bad page number',
    request: () => post({ text: 'a', model: VISION_MODEL }, { path: '/v1/render?page=0' }),
    status: 400,
    code: 'bad_request',
  },
  {
    name: 'not JSON content type',
    request: () =>
      post('text=a', { raw: true, headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'oversized body (Content-Length)',
    request: () => post({ text: 'x'.repeat(DEFAULT_LIMITS.maxBodyBytes), model: VISION_MODEL }),
    status: 413,
    code: 'body_too_large',
  },
  {
    name: 'text over the character limit',
    request: () => post({ text: 'x'.repeat(2_000), model: VISION_MODEL }),
    limits: { maxTextChars: 1_000 },
    status: 413,
    code: 'text_too_long',
  },
  {
    name: 'more pages than allowed',
    request: () => post({ text: 'word '.repeat(60_000), model: VISION_MODEL }),
    limits: { maxPages: 1 },
    status: 413,
    code: 'too_many_pages',
  },
  {
    name: 'empty text',
    request: () => post({ text: '', model: VISION_MODEL }),
    status: 422,
    code: 'empty_text',
  },
  {
    name: 'whitespace-only text',
    request: () => post({ text: ' \t\r\n\n  ', model: VISION_MODEL }),
    status: 422,
    code: 'empty_text',
  },
  {
    name: 'unknown model',
    request: () => post({ text: 'a', model: UNKNOWN_MODEL }),
    status: 422,
    code: 'unknown_model',
  },
  {
    name: 'model without vision',
    request: () => post({ text: 'a', model: NO_VISION_MODEL }),
    status: 422,
    code: 'no_vision',
  },
  {
    name: 'unreadable transcript',
    request: () => post({ transcript: 'this is not a transcript {', model: VISION_MODEL }),
    status: 422,
    code: 'bad_transcript',
  },
  {
    name: 'page past the end',
    request: () => post({ text: 'a', model: VISION_MODEL }, { path: '/v1/render?page=2' }),
    status: 422,
    code: 'page_out_of_range',
  },
];
