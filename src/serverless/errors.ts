/**
 * Errors the serverless handler answers with. Like Hono's `HTTPException`, an error carries its own
 * status and turns itself into a `Response`, so route code can `throw` and the handler maps it once.
 */

/** Machine-readable error codes; `docs/serverless.md` lists the status of each. */
export type ErrorCode =
  | 'not_found'
  | 'method_not_allowed'
  | 'unsupported_media_type'
  | 'body_too_large'
  | 'text_too_long'
  | 'too_many_pages'
  | 'bad_json'
  | 'bad_request'
  | 'empty_text'
  | 'unknown_model'
  | 'no_vision'
  | 'bad_transcript'
  | 'page_out_of_range'
  | 'no_page_shape'
  | 'not_implemented'
  | 'internal';

/** The JSON body of every error response. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string };
}

/** An error with an HTTP status; `getResponse()` renders it as `{"error":{"code","message"}}`. */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  getResponse(): Response {
    const body: ErrorBody = { error: { code: this.code, message: this.message } };
    return new Response(JSON.stringify(body), {
      status: this.status,
      headers: { 'content-type': 'application/json; charset=utf-8', ...this.headers },
    });
  }
}
