/**
 * The inspector's JSON API over one store (a folder workspace, or PostgreSQL through `StoreHandle`): a
 * Fetch-API handler (`(Request) => Promise<Response>`) that the Node adapter serves. Reads open
 * histories read-only, cached until their log changes (a folder: its size and mtime; a database, which
 * cannot tell without reading: until the inspector writes it or the conversation list is reloaded);
 * every write opens the history for writing exactly as the CLI and the slash commands do, so it takes
 * the same writer lock and meets the same errors (`HistoryLockedError` → 409).
 *
 * Security (issue 14): the page and the API answer only to the Host names they were started for (no
 * DNS rebinding); mutations need the per-start token the page carries and a same-origin `Origin`
 * (no CSRF); a non-loopback bind needs an access token on every request; a strict CSP; `readOnly`
 * refuses every mutation with 403.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { prepareRequest } from '../compaction/policy.js';
import { resolveProfile } from '../providers/index.js';
import { decode, layoutRows, parseVariant, variantCell } from '../render/index.js';
import { folderHandle, type StoreHandle } from '../store/handle.js';
import { Workspace } from '../store/workspace.js';
import { validateId } from '../store/ids.js';
import { estimateTokens } from '../tokens/index.js';
import { HistoryLockedError, type Awaitable } from '../tree/backend.js';
import type { Lineage } from '../transcript/log.js';
import { extractiveDigest } from '../tree/digest.js';
import type { AgentHistory } from '../tree/history.js';
import type { Item } from '../transcript/items.js';
import { itemText } from '../transcript/items.js';
import { EXPORT_FORMATS, exportPath, type ExportFormat } from '../views/export.js';
import { screenView, wireView, WIRE_PROVIDERS, type WireProvider } from '../views/index.js';
import { pathRow, treeRows, type TreeRow } from './model.js';
import { serveAsset } from './assets.js';

/** A request the API refuses, with the status and a message naming what was wrong. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface InspectorOptions {
  /** The workspace directory; it must exist. Or give `store`. */
  workspace?: string;
  /** A store opened by the caller (`glyphfold inspect --store`); `close()` closes it. */
  store?: StoreHandle;
  readOnly?: boolean;
  /**
   * Host headers (name and port) the server answers to, e.g. `127.0.0.1:8790`, `localhost:8790`; read
   * on each request, so a server may fill it in once it knows its port.
   */
  hosts: readonly string[];
  /** When set, every request needs it (`?access=` once, then a cookie): a non-loopback bind. */
  accessToken?: string;
  /** The mutation token (default: random per handler). */
  csrfToken?: string;
  /**
   * Another handler served under `/v1/` as it is (`glyphfold serve --workspace`: the render endpoint
   * beside the inspector). It writes nothing to the workspace, so the inspector's checks do not apply.
   */
  v1?: (request: Request) => Promise<Response>;
}

/** The model a provider's views are built for when the page does not name one. */
export const DEFAULT_MODELS: Readonly<Record<WireProvider, string>> = {
  anthropic: 'claude-opus-4-7',
  'openai-chat': 'gpt-5.5',
  'openai-responses': 'gpt-5.5',
  gemini: 'gemini-3-pro',
};

const PAGE_LIMIT = 2000;
const MAX_BODY = 64 * 1024;
const REQUEST_SHOWN = 1024 * 1024;

export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function json(value: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function intParam(url: URL, name: string, fallback: number, max: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) > max)
    throw new ApiError(400, `query ${name}: expected an integer 0-${max}, found '${raw}'`);
  return Number(raw);
}

function oneOf<T extends string>(what: string, value: string | null, list: readonly T[], fallback?: T): T {
  if (value === null && fallback !== undefined) return fallback;
  if (value === null || !(list as readonly string[]).includes(value))
    throw new ApiError(400, `${what}: expected one of ${list.join(', ')}, found ${JSON.stringify(value)}`);
  return value as T;
}

async function body(request: Request): Promise<Record<string, unknown>> {
  const text = await request.text();
  if (text.length > MAX_BODY) throw new ApiError(413, `request body over ${MAX_BODY} bytes`);
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ApiError(400, `request body is not JSON: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ApiError(400, 'request body: expected a JSON object');
  return value as Record<string, unknown>;
}

function stringField(b: Record<string, unknown>, name: string, optional = false): string | undefined {
  const v = b[name];
  if (v === undefined && optional) return undefined;
  if (typeof v !== 'string' || v === '')
    throw new ApiError(400, `body field "${name}": expected a non-empty string, found ${JSON.stringify(v)}`);
  return v;
}

interface ConversationRow {
  id: string;
  created: string;
  agents: { agent: string; items: number; turn: number; tip: string | null }[];
  forkedFrom: Lineage | null;
  forks: string[];
  lastActivity: string;
}

interface Cached {
  /** `StoreHandle.stamp` when opened (`undefined`: the store cannot tell; kept until dropped). */
  stamp: string | undefined;
  history: AgentHistory<boolean>;
  rows?: TreeRow[];
}

/** Creates the handler. `close()` closes the store (the workspace database, or the connections). */
export function createInspector(options: InspectorOptions): {
  handler: (request: Request) => Promise<Response>;
  csrfToken: string;
  close: () => Promise<void>;
} {
  let store: StoreHandle;
  if (options.store !== undefined) store = options.store;
  else if (options.workspace !== undefined) {
    const dir = options.workspace;
    // Inspecting must not create a workspace where there is none (a mistyped path).
    if (!existsSync(join(dir, 'logs')) && !existsSync(join(dir, 'workspace.db')))
      throw new Error(`--workspace: no glyphfold workspace in '${dir}' (expected ${join(dir, 'logs')})`);
    // Writes go through the same Workspace API the CLI uses (writer locks, index upkeep); reads open
    // histories read-only through it, so a fork is listed as soon as it is written.
    store = folderHandle(Workspace.open(dir, { readOnly: options.readOnly ?? false }), dir);
  } else throw new TypeError('createInspector: expected { workspace } or { store }');
  const readOnly = (options.readOnly ?? false) || store.readOnly;
  const csrfToken = options.csrfToken ?? randomBytes(24).toString('hex');
  const cache = new Map<string, Cached>();

  const drop = async (key: string): Promise<void> => {
    const hit = cache.get(key);
    cache.delete(key);
    await hit?.history.close();
  };

  const conversationOf = async (id: string) => {
    try {
      validateId('conversation', id);
    } catch (err) {
      throw new ApiError(400, (err as Error).message);
    }
    const info = await store.conversation(id);
    if (!info) throw new ApiError(404, `no conversation ${id} in ${store.shown}`);
    return info;
  };

  /** The read-only history, reopened when its log changed (another writer, or ours). */
  const read = async (conversation: string, agent: string): Promise<Cached> => {
    const info = await conversationOf(conversation);
    if (!info.agents.includes(agent))
      throw new ApiError(
        404,
        `conversation ${conversation} has no agent '${agent}'; it has: ${info.agents.join(', ')}`,
      );
    const stamp = store.stamp(conversation, agent);
    const key = `${conversation}/${agent}`;
    const hit = cache.get(key);
    if (hit && hit.stamp === stamp) return hit;
    const fresh: Cached = { stamp, history: await store.read(conversation, agent) };
    if (cache.get(key) !== hit) {
      // Another request opened it meanwhile: keep theirs.
      await fresh.history.close();
      return cache.get(key)!;
    }
    cache.set(key, fresh);
    await hit?.history.close();
    return fresh;
  };

  const write = async <T>(
    conversation: string,
    agent: string,
    op: (h: AgentHistory<boolean>) => Awaitable<T>,
  ): Promise<T> => {
    if (readOnly)
      throw new ApiError(403, 'the inspector was started with --read-only: no changes are written');
    await read(conversation, agent); // 404 for an unknown conversation or agent, before a lock or a file
    const h = await store.write(conversation, agent);
    try {
      return await op(h);
    } finally {
      await h.close();
      await drop(`${conversation}/${agent}`);
    }
  };

  const forksByItem = async (conversation: string, agent: string): Promise<Map<string, string[]>> => {
    const out = new Map<string, string[]>();
    for (const f of await store.forksOf(conversation)) {
      const from = (await store.conversation(f))?.forkedFrom;
      if (!from || from.agent !== agent || from.tip === null) continue;
      out.set(from.tip, [...(out.get(from.tip) ?? []), f]);
    }
    return out;
  };

  const pathAt = (h: AgentHistory<boolean>, at: string | null): Item[] => {
    if (at === null || at === '') return h.path();
    if (!h.get(at))
      throw new ApiError(404, `no item ${at} in conversation ${h.conversation} agent ${h.agent}`);
    return h.pathTo(at);
  };

  async function conversations(url: URL) {
    const q = (url.searchParams.get('q') ?? '').toLowerCase();
    const offset = intParam(url, 'offset', 0, 1e9);
    const limit = intParam(url, 'limit', 200, PAGE_LIMIT);
    // A store that cannot stamp its histories (PostgreSQL) shows other hosts' changes from here on.
    for (const [key, hit] of [...cache]) if (hit.stamp === undefined) await drop(key);
    const rows: ConversationRow[] = [];
    for (const id of await store.conversations()) {
      const info = await store.conversation(id);
      if (!info) continue; // gone since listed
      let last = 0;
      const agents: ConversationRow['agents'] = [];
      for (const agent of info.agents) {
        const row = await store.summary(id, agent);
        last = Math.max(last, row?.lastActivity ?? 0);
        agents.push({ agent, items: row?.items ?? 0, turn: row?.turn ?? 0, tip: row?.tip ?? null });
      }
      rows.push({
        id,
        created: info.created,
        agents,
        forkedFrom: info.forkedFrom ?? null,
        forks: await store.forksOf(id),
        lastActivity: new Date(last || Date.parse(info.created)).toISOString(),
      });
    }
    // Text search reads the items (ids and agents match without opening a log).
    const match = async (r: ConversationRow): Promise<{ hits: number; first?: string }> => {
      if (q === '') return { hits: 0 };
      if (r.id.toLowerCase().includes(q) || r.agents.some((a) => a.agent.toLowerCase().includes(q)))
        return { hits: 1 };
      let hits = 0;
      let first: string | undefined;
      for (const a of r.agents)
        for (const item of (await read(r.id, a.agent)).history.items()) {
          if (item.kind === 'image' || item.kind === 'compaction') continue;
          if (itemText(item).toLowerCase().includes(q)) {
            hits++;
            first ??= item.id;
          }
        }
      return { hits, ...(first ? { first } : {}) };
    };
    const matched = [];
    for (const r of rows) matched.push({ ...r, match: await match(r) });
    const found = matched
      .filter((r) => q === '' || r.match.hits > 0)
      .sort((a, b) => (a.lastActivity < b.lastActivity ? 1 : a.lastActivity > b.lastActivity ? -1 : 0));
    return { total: found.length, offset, conversations: found.slice(offset, offset + limit) };
  }

  async function route(request: Request, url: URL): Promise<Response> {
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (parts[0] !== 'api') return serveAsset(url.pathname, csrfToken, options.readOnly ?? false);
    const method = request.method;
    if (parts[1] === 'info' && parts.length === 2)
      return json({
        workspace: store.shown,
        readOnly,
        providers: WIRE_PROVIDERS,
        formats: EXPORT_FORMATS,
        models: DEFAULT_MODELS,
      });
    if (parts[1] === 'conversations' && parts.length === 2) return json(await conversations(url));
    if (parts[1] !== 'c' || parts.length < 5)
      throw new ApiError(404, `no API route ${method} ${url.pathname}`);
    const [, , conversation, agent, action, arg] = parts as [string, string, string, string, string, string?];
    try {
      validateId('agent', agent);
    } catch (err) {
      throw new ApiError(400, (err as Error).message);
    }
    if (method === 'POST') {
      const b = await body(request);
      switch (action) {
        case 'branch': {
          const at = b.at === null ? null : stringField(b, 'at')!;
          return json(
            await write(conversation, agent, async (h) => {
              await h.branch(at);
              return { tip: h.tip };
            }),
          );
        }
        case 'fork': {
          const at = stringField(b, 'at', true);
          const f = await write(conversation, agent, async (h) => {
            const fork = await h.fork(at === undefined ? {} : { at });
            const out = {
              conversation: fork.conversation,
              agent: fork.agent,
              tip: fork.tip,
              items: fork.items().length,
            };
            await fork.close();
            return out;
          });
          return json(f);
        }
        case 'checkpoint': {
          const label = stringField(b, 'label')!;
          return json(await write(conversation, agent, (h) => h.checkpoint(label)));
        }
        case 'rewind': {
          const label = stringField(b, 'label')!;
          const r = await write(conversation, agent, (h) => h.rewind(label));
          return json({
            tip: r.tip,
            checkpoint: r.checkpoint,
            abandoned: r.abandoned.length,
            digest: r.digest ?? null,
          });
        }
        case 'compact-preview':
          return json(await compactPreview((await read(conversation, agent)).history, b));
        default:
          throw new ApiError(404, `no API route POST ${url.pathname}`);
      }
    }
    if (method !== 'GET' && method !== 'HEAD')
      throw new ApiError(405, `method ${method} not allowed on ${url.pathname}`);
    const cached = await read(conversation, agent);
    const h = cached.history;
    switch (action) {
      case 'tree': {
        cached.rows ??= treeRows(
          h.items(),
          h.tip,
          h.path(),
          h.checkpoints(),
          await forksByItem(conversation, agent),
        );
        const offset = intParam(url, 'offset', 0, 1e9);
        const limit = intParam(url, 'limit', 500, PAGE_LIMIT);
        const find = url.searchParams.get('find');
        return json({
          conversation,
          agent,
          tip: h.tip,
          turn: h.turn,
          header: h.header ?? null,
          problems: h.problems,
          checkpoints: h.checkpoints(),
          total: cached.rows.length,
          offset,
          // Where an item sits in the drawing, so the page can scroll to it.
          ...(find ? { index: cached.rows.findIndex((r) => r.id === find) } : {}),
          rows: cached.rows.slice(offset, offset + limit),
        });
      }
      case 'path': {
        const path = pathAt(h, url.searchParams.get('at'));
        const offset = intParam(url, 'offset', 0, 1e9);
        const limit = intParam(url, 'limit', 500, PAGE_LIMIT);
        return json({ total: path.length, offset, rows: path.slice(offset, offset + limit).map(pathRow) });
      }
      case 'item': {
        const item = arg === undefined ? undefined : h.get(arg);
        if (!item)
          throw new ApiError(404, `no item ${String(arg)} in conversation ${conversation} agent ${agent}`);
        return json(item);
      }
      case 'export': {
        const format = oneOf<ExportFormat>(
          'query format',
          url.searchParams.get('format'),
          EXPORT_FORMATS,
          'glyphfold',
        );
        const at = url.searchParams.get('at');
        const path = pathAt(h, at);
        const out = exportPath(path, format, { sessionId: conversation });
        const name = `${conversation}-${agent}-${at || 'tip'}.${format}.${out.extension}`;
        return new Response(out.text, {
          headers: {
            'content-type': `${out.mediaType}; charset=utf-8`,
            'content-disposition': `attachment; filename="${name}"`,
            'x-glyphfold-items': String(path.length),
            'x-glyphfold-notes': String(out.notes.length),
            'cache-control': 'no-store',
          },
        });
      }
      case 'views': {
        const provider = oneOf<WireProvider>(
          'query provider',
          url.searchParams.get('provider'),
          WIRE_PROVIDERS,
          'anthropic',
        );
        const model = url.searchParams.get('model') || DEFAULT_MODELS[provider];
        const path = pathAt(h, url.searchParams.get('at'));
        const { profile } = resolveProfile(model);
        const request = { model, profile };
        const screen = screenView(path);
        if (path.length === 0)
          return json({ provider, model, screen, wire: null, repairs: [], tokens: null });
        const { body: wire, repairs } = wireView(provider, path, request);
        const est = estimateTokens(provider, path, request);
        // Figures cover the whole path; the page gets the newest `last` bubbles and wire entries, so a
        // long history stays light (the whole body is one export away).
        const last = intParam(url, 'last', 300, 100_000);
        const [key, entries]: [string, readonly unknown[]] =
          'messages' in wire
            ? ['messages', wire.messages]
            : 'input' in wire
              ? ['input', wire.input]
              : ['contents', wire.contents];
        return json({
          provider,
          model,
          screen: { ...screen, bubbles: screen.bubbles.slice(-last) },
          bubbles: screen.bubbles.length,
          wire: { ...wire, [key]: entries.slice(-last) },
          wireEntries: entries.length,
          repairs,
          tokens: { total: est.total, window: profile.contextWindow, rows: est.rows },
        });
      }
      case 'rewind-preview': {
        const label = url.searchParams.get('label') ?? '';
        const cp = h.checkpoints().find((c) => c.label === label);
        if (!cp)
          throw new ApiError(
            404,
            `no checkpoint '${label}' in conversation ${conversation} agent ${agent} (known: ${
              h
                .checkpoints()
                .map((c) => c.label)
                .join(', ') || 'none'
            })`,
          );
        const keep = new Set(h.pathTo(cp.at).map((i) => i.id));
        const abandoned = h.path().filter((i) => !keep.has(i.id));
        return json({
          checkpoint: cp,
          abandoned: abandoned.length,
          digest: abandoned.length > 0 ? extractiveDigest(label, abandoned) : null,
        });
      }
      default:
        throw new ApiError(404, `no API route GET ${url.pathname}`);
    }
  }

  async function compactPreview(h: AgentHistory<boolean>, b: Record<string, unknown>) {
    const model = stringField(b, 'model')!;
    const at = b.at === undefined || b.at === null ? null : stringField(b, 'at')!;
    let window: number | undefined;
    if (b.budget !== undefined) {
      if (typeof b.budget !== 'number' || !Number.isInteger(b.budget) || b.budget < 1000)
        throw new ApiError(
          400,
          `body field "budget": expected an integer >= 1000 tokens, found ${JSON.stringify(b.budget)}`,
        );
      window = b.budget;
    }
    const resolved = resolveProfile(model);
    const path = pathAt(h, at);
    const prepared = await prepareRequest(path, { model, resolved, budget: window ? { window } : {} }, true);
    const variant = prepared.report.snapshot?.variant;
    const pages = prepared.rendered.flatMap((run, r) =>
      run.pages.map((p, k) => {
        let decoded: string | null;
        try {
          decoded = variant ? decode([p.png], { variant }) : null;
        } catch {
          decoded = null; // shown as "not decodable" beside the page; the run's source text still is
        }
        return {
          run: r,
          page: k,
          lines: decoded === null || variant === undefined ? null : lineBands(decoded, variant, p.width),
          width: p.width,
          height: p.height,
          chars: p.chars,
          png: Buffer.from(p.png).toString('base64'),
          decoded,
        };
      }),
    );
    const before = estimateTokens(prepared.setup.wire, path, prepared.setup.request);
    const after = estimateTokens(prepared.setup.wire, prepared.items, prepared.setup.request);
    const takenBy: Record<string, string> = {};
    for (const rung of prepared.report.rungs)
      if (rung.applied) for (const id of rung.items) takenBy[id] ??= rung.rung;
    return {
      model,
      note: resolved.note ?? null,
      report: prepared.report,
      runs: prepared.rendered.map((run) => ({
        items: run.items.map((i) => i.id),
        text: run.text,
        textTokens: run.textTokens,
      })),
      pages,
      takenBy,
      path: path.map(pathRow),
      tokens: { before: before.rows, after: after.rows, totalBefore: before.total, totalAfter: after.total },
      // Past a megabyte the body is not shipped to the page (a 100k-item path's is tens of MB);
      // `glyphfold compact` writes it whole.
      ...(JSON.stringify(prepared.body).length <= REQUEST_SHOWN
        ? { request: prepared.body }
        : { request: null, requestBytes: JSON.stringify(prepared.body).length }),
    };
  }

  async function handler(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (options.v1 && url.pathname.startsWith('/v1/')) return options.v1(request);
    const base = {
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    };
    const withBase = (r: Response): Response => {
      for (const [k, v] of Object.entries(base)) r.headers.set(k, v);
      return r;
    };
    try {
      const host = (request.headers.get('host') ?? url.host).toLowerCase();
      // Read per request: the server fills the list in once it knows its port.
      const allowedHosts = new Set(options.hosts.map((h) => h.toLowerCase()));
      if (!allowedHosts.has(host))
        throw new ApiError(
          421,
          `host ${JSON.stringify(host)} is not one this inspector serves (${[...allowedHosts].join(', ')})`,
        );
      let setCookie: string | undefined;
      if (options.accessToken !== undefined) {
        const given = url.searchParams.get('access');
        const cookie = /(?:^|;\s*)gf_access=([0-9a-f]+)/.exec(request.headers.get('cookie') ?? '')?.[1];
        if (given !== null && same(given, options.accessToken))
          setCookie = `gf_access=${options.accessToken}; HttpOnly; SameSite=Strict; Path=/`;
        else if (cookie === undefined || !same(cookie, options.accessToken))
          throw new ApiError(
            401,
            'access token required: open the URL the inspector printed (with ?access=…)',
          );
      }
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        const origin = request.headers.get('origin');
        if (origin !== null && origin !== `${url.protocol}//${url.host}`)
          throw new ApiError(403, `cross-origin request refused (Origin ${origin})`);
        const token = request.headers.get('x-glyphfold-token') ?? '';
        if (!same(token, csrfToken))
          throw new ApiError(403, 'missing or wrong x-glyphfold-token header (the page carries it)');
      }
      const response = await route(request, url);
      if (setCookie) response.headers.append('set-cookie', setCookie);
      return withBase(response);
    } catch (err) {
      if (err instanceof ApiError)
        return withBase(json({ error: { status: err.status, message: err.message } }, err.status));
      if (err instanceof HistoryLockedError)
        return withBase(json({ error: { status: 409, message: err.message } }, 409));
      // The store's own validation (unknown item, checkpoint label, pending turn): the caller's input.
      if (err instanceof RangeError)
        return withBase(json({ error: { status: 400, message: err.message } }, 400));
      return withBase(
        json({ error: { status: 500, message: err instanceof Error ? err.message : String(err) } }, 500),
      );
    }
  }

  return {
    handler,
    csrfToken,
    close: async () => {
      for (const key of [...cache.keys()]) await drop(key);
      await store.close();
    },
  };
}

/**
 * Where each line of a page's decoded text sits on the page, in pixels (`lines` layout: rows from
 * the top, one cell pitch each; a long line soft-wraps onto several). `null` for the flow layout,
 * whose rows do not follow lines.
 */
export function lineBands(text: string, variantId: string, width: number): { y: number; h: number }[] | null {
  const v = parseVariant(variantId);
  if (v.layout !== 'lines') return null;
  const pitch = variantCell(v);
  const cols = Math.floor(width / pitch.width);
  let row = 0;
  return text.split('\n').map((line) => {
    const rows = layoutRows(line, { cols, cell: v.cell, layout: 'lines' });
    const band = { y: row * pitch.height, h: rows * pitch.height };
    row += rows;
    return band;
  });
}
