/** `glyphfold/serverless`: a Fetch-API handler that renders snapshot pages. Edge-safe. */
export { createHandler, handler, DEFAULT_LIMITS } from './handler.js';
export type { FetchHandler, HandlerOptions, Limits, PageJson, RenderResponseJson } from './handler.js';
export { HttpError } from './errors.js';
export type { ErrorBody, ErrorCode } from './errors.js';
export type { RenderRequestBody } from './request.js';
