/**
 * The reference backend: every log kept in memory as parsed entries. It defines what the real backend
 * must do (both pass `test/tree/history.case.ts`) and is handy for tests and short-lived runs.
 */
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../transcript/hash.js';
import { LOG_VERSION, type LogEntry, type LogHeader, type Lineage } from '../transcript/log.js';
import {
  HistoryLockedError,
  systemMismatch,
  type BlobStore,
  type ConversationInfo,
  type CreateHistoryOptions,
  type HistoryBackend,
  type HistoryWorkspace,
  type LoadedLog,
} from './backend.js';
import { AgentHistory, type HistoryOptions } from './history.js';

interface MemoryLog {
  header: LogHeader;
  entries: LogEntry[];
}

export class MemoryWorkspace implements HistoryWorkspace {
  private readonly logs = new Map<string, Map<string, MemoryLog>>();
  private readonly created = new Map<string, { created: string; forkedFrom?: Lineage }>();
  private readonly open = new Set<string>();
  private readonly blobMap = new Map<string, Uint8Array>();
  readonly blobs: BlobStore = {
    put: (bytes) => {
      const hash = sha256Hex(bytes);
      this.blobMap.set(hash, Uint8Array.from(bytes));
      return hash;
    },
    get: (hash) => {
      const b = this.blobMap.get(hash);
      if (!b) throw new Error(`blob ${hash} is missing`);
      return b;
    },
  };

  constructor(private readonly options: HistoryOptions = {}) {}

  /** Opens (creating when new) the history of `agent` in `conversation`, for writing. */
  history(conversation: string, agent = 'main', options: CreateHistoryOptions = {}): AgentHistory {
    return new AgentHistory(this.backend(conversation, agent, undefined, options.system), this.options);
  }

  conversation(id: string): ConversationInfo | undefined {
    const c = this.created.get(id);
    if (!c) return undefined;
    return {
      id,
      created: c.created,
      agents: [...(this.logs.get(id)?.keys() ?? [])].sort(),
      ...(c.forkedFrom ? { forkedFrom: c.forkedFrom } : {}),
    };
  }

  conversations(): string[] {
    return [...this.created.keys()].sort();
  }

  close(): void {}

  private backend(
    conversation: string,
    agent: string,
    lineage: Lineage | undefined,
    system: string | undefined,
  ): HistoryBackend {
    const key = `${conversation}\u0000${agent}`;
    if (this.open.has(key))
      throw new HistoryLockedError(`conversation ${conversation} agent ${agent} is already open for writing`);
    let byAgent = this.logs.get(conversation);
    if (lineage && byAgent?.has(agent))
      throw new Error(`fork: conversation ${conversation} already has a history for agent ${agent}`);
    const time = new Date().toISOString();
    if (!this.created.has(conversation))
      this.created.set(conversation, { created: time, ...(lineage ? { forkedFrom: lineage } : {}) });
    if (!byAgent) this.logs.set(conversation, (byAgent = new Map()));
    let log = byAgent.get(agent);
    if (!log) {
      log = {
        header: {
          t: 'header',
          v: LOG_VERSION,
          conversation,
          agent,
          created: time,
          ...(lineage ? { forkedFrom: lineage } : {}),
          ...(system !== undefined ? { system } : {}),
        },
        entries: [],
      };
      byAgent.set(agent, log);
    } else if (system !== undefined && log.header.system !== system) {
      throw new Error(systemMismatch(conversation, agent, log.header.system));
    }
    this.open.add(key);
    const memLog = log;
    let closed = false;
    const createFork = (target: string, lin: Lineage, sys?: string): HistoryBackend =>
      this.backend(target, agent, lin, sys);
    const release = (): void => {
      this.open.delete(key);
    };
    return {
      conversation,
      agent,
      blobs: this.blobs,
      load(): LoadedLog {
        return {
          header: memLog.header,
          entries: memLog.entries.map((entry, i) => ({ line: i + 2, entry })),
          problems: [],
        };
      },
      write(unit) {
        if (closed) throw new Error(`conversation ${conversation} agent ${agent} is closed`);
        // structuredClone: what is stored must not change when the caller mutates its objects later.
        memLog.entries.push(...structuredClone(unit as LogEntry[]));
      },
      createFork,
      newConversationId: () => 'c_' + randomBytes(6).toString('hex'),
      close() {
        if (!closed) release();
        closed = true;
      },
    };
  }
}
