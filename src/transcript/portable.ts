/**
 * `glyphfold/transcript`: the part of the transcript layer that runs anywhere (browsers, Workers,
 * Deno, Bun): items and their validation, canonical JSON, JSONL export, importers, image sizes. The
 * hash-chained log format (`hash.ts`, `log.ts`) needs Node's crypto and Buffer and stays with the store.
 */
export * from './items.js';
export * from './validate.js';
export * from './canonical.js';
export * from './jsonl.js';
export * from './readable.js';
export * from './image-size.js';
export * from './import/index.js';
