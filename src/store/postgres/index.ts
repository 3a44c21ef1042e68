/**
 * `glyphfold/store/postgres`: the record in PostgreSQL, for fleets of harness hosts. Loaded only from
 * this subpath (it needs the `pg` driver, an optional peer dependency), never by `import 'glyphfold'`.
 */
export { PostgresStore, type PostgresStoreOptions, type PostgresHistoryOptions } from './store.js';
export { PG_MIGRATIONS } from './schema.js';
export { HistoryLockedError, type HistoryStore } from '../../tree/backend.js';
export { LogIntegrityError } from '../workspace.js';
