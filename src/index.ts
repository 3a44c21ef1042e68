/** glyphfold: the record of an agent run, and requests rebuilt to fit. Subpath exports hold each layer. */
export * from './transcript/items.js';
export * from './providers/index.js';
