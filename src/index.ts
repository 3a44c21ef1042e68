/** glyphfold: the record of an agent run, and requests rebuilt to fit. Subpath exports hold each layer. */
export * from './transcript/items.js';
export * from './transcript/import/index.js';
export * from './transcript/jsonl.js';
export * from './transcript/image-size.js';
export * from './render/index.js';
export * from './transcript/index.js';
export * from './tree/index.js';
export * from './store/index.js';
export * from './providers/index.js';
export * from './views/index.js';
export * from './tokens/index.js';
export * from './compaction/index.js';
export * from './commands/index.js';
