/** Views: the screen a person reads and the wire a model reads, built from a path of items. */
export * from './types.js';
export type { ViewContext, WireView } from './view.js';
export {
  normalize as normalizeTurns,
  wrapContext,
  wrapSummary,
  wrapDigest,
  imagePlaceholder,
  safeCallId,
  type Block as WireBlock,
  type Turn as WireTurn,
  type Origin as WireOrigin,
  type NormalizeOptions,
  type NormalizeNotes,
} from './normalize.js';
export * from './pairing.js';
export { wireView, prepareTurns, VIEWS, LEADING_USER_TEXT } from './wire.js';
export { ANTHROPIC_DEFAULT_MAX_TOKENS } from './anthropic.js';
export * from './screen.js';
export * from './export.js';
export * from './bodies.js';
export * from './sdk-messages.js';
