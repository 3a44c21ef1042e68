export { Workspace, LogIntegrityError, type OpenHistoryOptions, type ReindexReport } from './workspace.js';
export { validateId, ID_PATTERN } from './ids.js';
