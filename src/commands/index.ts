/** Slash commands, as data: `runSlash('/compact focus on the API', { history, compaction })`. */
export * from './slash.js';
