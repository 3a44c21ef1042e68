export * from './items.js';
export * from './validate.js';
export * from './canonical.js';
export * from './hash.js';
export * from './log.js';
export * from './jsonl.js';
export * from './readable.js';
