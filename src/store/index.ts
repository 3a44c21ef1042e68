export {
  Workspace,
  LogIntegrityError,
  type OpenHistoryOptions,
  type ReindexReport,
  type WorkspaceOptions,
} from './workspace.js';
export { LogWriteError } from './logfile.js';
export { validateId, ID_PATTERN } from './ids.js';
