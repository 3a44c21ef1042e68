export {
  Workspace,
  LogIntegrityError,
  ReindexLossError,
  WorkspaceDatabaseError,
  type ReindexLoss,
  type OpenHistoryOptions,
  type ReindexReport,
  type WorkspaceOptions,
} from './workspace.js';
export { DEFAULT_MAX_LOG_BYTES, LogFullError, LogWriteError } from './logfile.js';
export { validateId, ID_PATTERN } from './ids.js';
