/**
 * Where a command's record is: `--workspace DIR` (a folder) or `--store URL` (`postgres://…` /
 * `postgresql://…` a PostgreSQL database, `file:…` or a plain path a folder), or the `GLYPHFOLD_STORE`
 * environment variable when neither is given. The one place the CLI opens a store; its errors say which
 * option was wrong and never show a password.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { folderHandle, postgresHandle, type StoreHandle } from '../store/handle.js';
import { Workspace } from '../store/workspace.js';
import { UsageError, type CliIO } from './command.js';
import { fileLedger, sqlLedger, type ImportLedger } from './import-folder.js';

/** The environment variable naming the store when no option does (a URL with a password stays out of `ps`). */
export const STORE_ENV = 'GLYPHFOLD_STORE';

/** The two options, for a command's `parseArgs` table. */
export const STORE_OPTIONS = {
  workspace: { type: 'string' },
  store: { type: 'string' },
} as const;

/** The options' lines for a command's usage text. */
export const STORE_USAGE = `  --workspace DIR     a glyphfold workspace folder
  --store URL         the same, or a database: postgres://USER@HOST:PORT/DB (?schema=NAME, default
                      glyphfold), file:DIR or a path; default: $${STORE_ENV}. Give the password in
                      PGPASSWORD or ~/.pgpass rather than in the URL (it shows in ps)`;

export type StoreSpec =
  | { kind: 'folder'; dir: string; shown: string }
  | {
      kind: 'postgres';
      /** The connection string for the driver (without `schema`). */
      url: string;
      schema: string | undefined;
      /** The URL without its password. */
      shown: string;
      /** `host:port` (or the socket directory and port), for connection errors. */
      endpoint: string;
    };

/** Passwords seen in store URLs this run: `scrubSecrets` blanks them in any message. */
const secrets = new Set<string>();

/** `text` with every password given in a store URL replaced by `***`. */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join('***');
  return out;
}

/** `url` with its password (user-info or `password=` parameter) replaced by `***`. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    if (u.searchParams.has('password')) u.searchParams.set('password', '***');
    return u.toString().replace('%2A%2A%2A', '***');
  } catch {
    return url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@').replace(/(password=)[^&]*/i, '$1***');
  }
}

function remember(secret: string): void {
  if (secret === '') return;
  secrets.add(secret);
  try {
    secrets.add(decodeURIComponent(secret));
  } catch {
    // not percent-encoded: the raw form is enough
  }
}

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;

/** Reads a `--store` value (or the environment variable's), naming `from` in its errors. */
export function parseStore(value: string, from: string, cwd: string): StoreSpec {
  if (value === '') throw new UsageError(`${from}: expected a URL or a directory, found an empty string`);
  const scheme = SCHEME.exec(value)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') {
    let u: URL;
    try {
      u = new URL(value);
    } catch {
      throw new UsageError(`${from}: not a valid URL: ${redactUrl(value)}`);
    }
    remember(u.password);
    const password = u.searchParams.get('password');
    if (password !== null) remember(password);
    // One database holds several stores (one per schema); the driver must not see the parameter.
    const schema = u.searchParams.get('schema') ?? undefined;
    u.searchParams.delete('schema');
    const host = u.hostname || u.searchParams.get('host') || process.env.PGHOST || 'localhost';
    const port = u.port || u.searchParams.get('port') || process.env.PGPORT || '5432';
    const url = u.toString();
    return { kind: 'postgres', url, schema, shown: redactUrl(value), endpoint: `${host}:${port}` };
  }
  if (scheme === 'file') {
    let dir: string;
    try {
      dir = fileURLToPath(value);
    } catch (err) {
      throw new UsageError(`${from}: not a file URL: ${value} (${(err as Error).message})`);
    }
    return { kind: 'folder', dir, shown: value };
  }
  if (scheme !== undefined)
    throw new UsageError(
      `${from}: unknown scheme '${scheme}:' in ${redactUrl(value)}; expected postgres://, postgresql://, file:// or a directory path`,
    );
  if (value.startsWith('file:')) return { kind: 'folder', dir: resolve(cwd, value.slice(5)), shown: value };
  return { kind: 'folder', dir: resolve(cwd, value), shown: value };
}

/**
 * The store the options (or `GLYPHFOLD_STORE`) name, or `undefined` when none does. `env: false` for
 * commands whose positional argument is a FILE unless a store is named (view, compact): there only the
 * options choose the store.
 */
export function storeSpec(
  values: { workspace?: string | undefined; store?: string | undefined },
  io: Pick<CliIO, 'cwd'>,
  options: { env?: boolean } = {},
): StoreSpec | undefined {
  if (values.workspace !== undefined && values.store !== undefined)
    throw new UsageError('--workspace and --store both name the store; give one, not both');
  if (values.workspace !== undefined) {
    if (values.workspace === '') throw new UsageError('--workspace: expected a directory, found ""');
    return { kind: 'folder', dir: resolve(io.cwd, values.workspace), shown: values.workspace };
  }
  if (values.store !== undefined) return parseStore(values.store, '--store', io.cwd);
  const env = options.env !== false ? process.env[STORE_ENV] : undefined;
  if (env !== undefined && env !== '') return parseStore(env, STORE_ENV, io.cwd);
  return undefined;
}

/** Like `storeSpec`, for commands that need a store: none named is a usage error. */
export function requireStore(
  values: { workspace?: string | undefined; store?: string | undefined },
  io: Pick<CliIO, 'cwd'>,
): StoreSpec {
  const spec = storeSpec(values, io);
  if (!spec) throw new UsageError(`--workspace DIR is required (or --store URL, or ${STORE_ENV})`);
  return spec;
}

/** A store as the CLI opens it: the handle, and the ledger `glyphfold import FOLDER` keeps in it. */
export interface CliStore extends StoreHandle {
  readonly ledger: ImportLedger;
}

/** A read-only open of a store that does not exist (no folder, no schema): nothing was created. */
export class NoStoreError extends Error {
  override name = 'NoStoreError';
}

/** The reason a driver gave, also for the `AggregateError` Node throws when every address refused. */
function reasonOf(err: unknown): string {
  const e = err as { message?: string; code?: string; errors?: unknown[] };
  if (Array.isArray(e.errors) && e.errors.length > 0)
    return [...new Set(e.errors.map((x) => reasonOf(x)))].join('; ');
  return e.message || e.code || String(err);
}

/** The `pg` package itself is missing (not a module of ours, nor one of pg's own). */
function missingDriver(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e.code === 'ERR_MODULE_NOT_FOUND' && /(package|module) 'pg'/.test(e.message ?? '');
}

/**
 * Opens the store `spec` names. `readOnly`: the handle refuses writes. `mustExist` (default: as
 * `readOnly`): a folder or schema that does not exist is a `NoStoreError` and nothing is created;
 * otherwise a folder is created when missing and a database gets its schema (migrations applied).
 * Close the handle when done: it holds database handles or connections, and the process does not exit
 * while a connection is open.
 */
export async function openStore(
  spec: StoreSpec,
  options: { readOnly: boolean; mustExist?: boolean },
): Promise<CliStore> {
  const mustExist = options.mustExist ?? options.readOnly;
  if (spec.kind === 'folder') {
    if (mustExist && !existsSync(join(spec.dir, 'logs')) && !existsSync(join(spec.dir, 'workspace.db')))
      throw new NoStoreError(`no glyphfold workspace in ${spec.dir} (expected ${join(spec.dir, 'logs')})`);
    const ws = Workspace.open(spec.dir, { readOnly: options.readOnly });
    return { ...folderHandle(ws, spec.shown), ledger: fileLedger(spec.dir) };
  }
  let mod: typeof import('../store/postgres/index.js');
  try {
    // Loaded only for a database: the driver is an optional peer dependency.
    mod = await import('../store/postgres/index.js');
  } catch (err) {
    if (missingDriver(err))
      throw new Error(
        `${spec.shown}: the PostgreSQL driver is not installed; run 'npm install pg' (an optional peer dependency of glyphfold)`,
        { cause: err },
      );
    throw err;
  }
  // A host that drops packets would otherwise keep the command waiting for the system's TCP timeout.
  const timeout = /[?&]connect_timeout=/.test(spec.url) ? {} : { connectionTimeoutMillis: 10_000 };
  const store = new mod.PostgresStore({
    connectionString: spec.url,
    pool: timeout,
    ...(spec.schema !== undefined ? { schema: spec.schema } : {}),
  });
  const fail = async (err: unknown): Promise<never> => {
    await store.close().catch(() => {});
    throw new Error(
      `cannot open the PostgreSQL store ${spec.shown} at ${spec.endpoint}: ${scrubSecrets(reasonOf(err))}`,
      { cause: err },
    );
  };
  if (mustExist) {
    // Reading must not create a store where there is none (a mistyped database or schema).
    let exists = false;
    try {
      const { rows } = await store.pool.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [
        store.schema,
      ]);
      exists = rows.length > 0;
    } catch (err) {
      await fail(err);
    }
    if (!exists) {
      await store.close();
      throw new NoStoreError(
        `no glyphfold store in ${spec.shown}: schema "${store.schema}" does not exist (import into it first, or name another with ?schema=)`,
      );
    }
  }
  try {
    await store.migrate();
  } catch (err) {
    await fail(err);
  }
  return {
    ...postgresHandle(store, spec.shown, options.readOnly),
    ledger: sqlLedger({ query: (text, values) => store.pool.query(text, values) }, store.schema),
  };
}

/** Opens, runs `f`, and closes the store whatever `f` did (connections ended, locks released). */
export async function withStore<T>(
  spec: StoreSpec,
  options: { readOnly: boolean },
  f: (store: CliStore) => Promise<T>,
): Promise<T> {
  const store = await openStore(spec, options);
  try {
    return await f(store);
  } finally {
    await store.close();
  }
}
