/**
 * Finding the sessions in a harness folder: a Claude Code project folder (`<session>.jsonl`, its
 * subagents in `<session>/subagents/**\/agent-*.jsonl` or, in older versions, `agent-*.jsonl` beside
 * it naming the session in `sessionId`), a Codex sessions tree (`YYYY/MM/DD/rollout-*.jsonl`), or any
 * folder of supported files. One session per conversation; the ledger (`imports.json` in a workspace,
 * the table `cli_imports` in a database)
 * remembers what each source held, so a re-run skips unchanged sessions and extends grown ones.
 */
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { sha256Hex } from '../transcript/hash.js';
import { ID_PATTERN } from '../store/ids.js';

/** One session found in a folder: its main file and the subagent files that belong to it. */
export interface FoundSession {
  /** Absolute path of the main file. */
  file: string;
  /** Absolute paths of subagent logs (Claude Code). */
  agents: string[];
  /** Conversation id: the file name without extension, made valid; unique within the folder. */
  conversation: string;
}

const SUPPORTED = /\.(jsonl|json|traj)$/;
const AGENT_FILE = /^agent-.+\.jsonl$/;

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else if (entry.isFile() && SUPPORTED.test(entry.name)) out.push(path);
  }
}

/** The `sessionId` of a Claude Code agent file's first entry that has one. */
function sessionIdOf(file: string): string | undefined {
  const head = readFileSync(file, 'utf8').slice(0, 64 * 1024);
  for (const line of head.split('\n')) {
    try {
      const v = JSON.parse(line) as { sessionId?: unknown };
      if (typeof v.sessionId === 'string') return v.sessionId;
    } catch {
      // a line cut at the 64 KiB mark, or not JSON: the importer reports those
    }
  }
  return undefined;
}

function stemId(file: string): string {
  const id = basename(file)
    .replace(/\.[^.]*$/, '')
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[.-]+/, '')
    .slice(0, 90);
  return id || 'session';
}

/** Every session under `root`, in path order, with its subagent files. */
export function findSessions(root: string): FoundSession[] {
  const files: string[] = [];
  walk(root, files);
  const agentFiles = new Set(files.filter((f) => AGENT_FILE.test(basename(f))));
  const mains = files.filter((f) => !agentFiles.has(f) && basename(f) !== 'journal.jsonl');
  const byStem = new Map<string, FoundSession>();
  const sessions: FoundSession[] = mains.map((file) => {
    const s: FoundSession = { file, agents: [], conversation: stemId(file) };
    byStem.set(join(dirname(file), basename(file).replace(/\.jsonl$/, '')), s);
    return s;
  });
  const claimed = new Set<string>();
  for (const f of agentFiles) {
    // Newer layout: <dir>/<session>/subagents/…/agent-<id>.jsonl.
    const rel = relative(root, f).split('/');
    const at = rel.lastIndexOf('subagents');
    if (at > 0) {
      const owner = byStem.get(join(root, ...rel.slice(0, at)));
      if (owner) {
        owner.agents.push(f);
        claimed.add(f);
        continue;
      }
    }
    // Older layout: agent-<id>.jsonl beside the sessions, naming its session inside.
    const sid = sessionIdOf(f);
    const owner = sid !== undefined ? byStem.get(join(dirname(f), sid)) : undefined;
    if (owner) {
      owner.agents.push(f);
      claimed.add(f);
    }
  }
  // An agent file whose session is not in the folder is a history of its own.
  for (const f of agentFiles)
    if (!claimed.has(f)) sessions.push({ file: f, agents: [], conversation: stemId(f) });
  sessions.sort((a, b) => (a.file < b.file ? -1 : 1));
  const seen = new Map<string, number>();
  for (const s of sessions) seen.set(s.conversation, (seen.get(s.conversation) ?? 0) + 1);
  for (const s of sessions) {
    // Two files with one name in different folders: the folder path tells them apart, stably.
    if (seen.get(s.conversation)! > 1)
      s.conversation = `${s.conversation.slice(0, 90)}-${sha256Hex(relative(root, s.file)).slice(0, 8)}`;
    if (!ID_PATTERN.test(s.conversation))
      throw new Error(`internal: derived conversation id ${s.conversation} is not valid`);
  }
  return sessions;
}

/** What the ledger remembers of one session: the conversation and each source file's hash. */
export interface LedgerEntry {
  conversation: string;
  /** The main agent's name when it is not `main` (`glyphfold import FILE --agent NAME`). */
  agent?: string;
  files: Record<string, { sha256: string; bytes: number }>;
}

export interface Ledger {
  version: 1;
  sources: Record<string, LedgerEntry>;
}

/** The workspace's import ledger (`imports.json`); an empty one when there is none yet. */
export function readLedger(workspace: string): Ledger {
  const file = join(workspace, 'imports.json');
  if (!existsSync(file)) return { version: 1, sources: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(
      `the import ledger ${file} is not valid JSON (${(error as Error).message}); move it aside to start over`,
      {
        cause: error,
      },
    );
  }
  const l = parsed as Partial<Ledger>;
  if (l.version !== 1 || typeof l.sources !== 'object' || l.sources === null)
    throw new Error(
      `the import ledger ${file} expected { version: 1, sources }, found version ${String(l.version)}`,
    );
  return l as Ledger;
}

/** Writes the ledger aside and renames it over, so a crash leaves the old one or the new one. */
export function writeLedger(workspace: string, ledger: Ledger): void {
  const file = join(workspace, 'imports.json');
  const aside = `${file}.${process.pid}.tmp`;
  writeFileSync(aside, JSON.stringify(ledger, null, 1) + '\n');
  renameSync(aside, file);
}

/** Whether a session's files now are the ones the ledger recorded (same paths, same hashes). */
export function sameFiles(known: LedgerEntry, files: LedgerEntry['files']): boolean {
  return (
    Object.keys(files).length === Object.keys(known.files).length &&
    Object.entries(files).every(([f, h]) => known.files[f]?.sha256 === h.sha256)
  );
}

/** Hash and size of each file of a session, as the ledger records them. */
export function fingerprint(files: readonly string[]): LedgerEntry['files'] {
  const out: LedgerEntry['files'] = {};
  for (const f of files) {
    const bytes = readFileSync(f);
    out[f] = { sha256: sha256Hex(bytes), bytes: statSync(f).size };
  }
  return out;
}

/**
 * Where a store keeps its ledger: a folder workspace in `imports.json`, a database in the table
 * `<schema>.cli_imports` (one row per source file, written as each session is imported).
 */
export interface ImportLedger {
  /** Where it is, for messages. */
  readonly shown: string;
  read(): Promise<Ledger>;
  /** Remembers what `source` held when imported (after its histories were written). */
  record(source: string, entry: LedgerEntry): Promise<void>;
}

/** The ledger `<workspace>/imports.json`, rewritten whole (aside, then renamed) on each record. */
export function fileLedger(workspace: string): ImportLedger {
  let ledger: Ledger | undefined;
  return {
    shown: join(workspace, 'imports.json'),
    read: async () => (ledger ??= readLedger(workspace)),
    record: async (source, entry) => {
      ledger ??= readLedger(workspace);
      ledger.sources[source] = entry;
      writeLedger(workspace, ledger);
    },
  };
}

/** What the database ledger needs of a `pg` pool (typed here so this module does not load `pg`). */
export interface SqlPool {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * The ledger of a PostgreSQL store: the table `cli_imports` in the store's schema, created on the first
 * record (a dry run creates nothing). Source paths are those of the importing host, as in a folder's.
 */
export function sqlLedger(pool: SqlPool, schema: string): ImportLedger {
  const table = `"${schema.replace(/"/g, '""')}".cli_imports`;
  let created = false;
  return {
    shown: `table ${table}`,
    read: async () => {
      const sources: Ledger['sources'] = {};
      const { rows } = await pool.query('SELECT to_regclass($1) IS NOT NULL AS present', [table]);
      if (!(rows[0] as { present: boolean }).present) return { version: 1, sources };
      const all = await pool.query(`SELECT source, conversation, agent, files FROM ${table}`);
      for (const r of all.rows as {
        source: string;
        conversation: string;
        agent: string | null;
        files: LedgerEntry['files'];
      }[])
        sources[r.source] = {
          conversation: r.conversation,
          ...(r.agent !== null ? { agent: r.agent } : {}),
          files: r.files,
        };
      return { version: 1, sources };
    },
    record: async (source, entry) => {
      if (!created) {
        await pool.query(
          `CREATE TABLE IF NOT EXISTS ${table} (source text PRIMARY KEY, conversation text NOT NULL, agent text, files jsonb NOT NULL, imported timestamptz NOT NULL DEFAULT now())`,
        );
        created = true;
      }
      await pool.query(
        `INSERT INTO ${table} (source, conversation, agent, files) VALUES ($1, $2, $3, $4)
         ON CONFLICT (source) DO UPDATE SET conversation = EXCLUDED.conversation, agent = EXCLUDED.agent, files = EXCLUDED.files, imported = now()`,
        [source, entry.conversation, entry.agent ?? null, JSON.stringify(entry.files)],
      );
    },
  };
}
