/** Views: the screen a person reads and the wire a model reads, built from a path of items. */
export * from './types.js';
export type { ViewContext, WireView } from './view.js';
export {
  normalize,
  wrapContext,
  wrapSummary,
  wrapDigest,
  imagePlaceholder,
  type Block,
  type Turn,
  type Origin,
} from './normalize.js';
export * from './pairing.js';
export { wireView, prepareTurns, VIEWS, LEADING_USER_TEXT } from './wire.js';
export { ANTHROPIC_DEFAULT_MAX_TOKENS } from './anthropic.js';
export * from './screen.js';
