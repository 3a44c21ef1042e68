export * from './backend.js';
export * from './history.js';
export * from './memory.js';
export * from './resume.js';
export * from './render.js';
export { extractiveDigest } from './digest.js';
export type { FileRestore } from './files.js';
