/**
 * The inspector: a local web page over a workspace (tree navigator, branch/fork/checkpoint/rewind,
 * export, screen vs wire, compaction preview with snapshot pages beside their text). Served by
 * `glyphfold inspect`; nothing else in glyphfold imports it (docs/inspector.md).
 */
import { randomBytes } from 'node:crypto';
import { serve } from '../adapters/node.js';
import type { StoreHandle } from '../store/handle.js';
import { createInspector } from './api.js';

export { createInspector, ApiError, CSP, DEFAULT_MODELS, type InspectorOptions } from './api.js';
export { treeRows, preview, type TreeRow, type PathRow } from './model.js';

export interface StartOptions {
  /** The workspace directory (or give `store`). */
  workspace?: string;
  /** A store opened by the caller; closed with the inspector. */
  store?: StoreHandle;
  /** Default 8790; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. Any other address gets a random access token, printed in the URL. */
  host?: string;
  readOnly?: boolean;
  /** A handler for `/v1/…` served beside the page (see `InspectorOptions.v1`). */
  v1?: (request: Request) => Promise<Response>;
}

export interface RunningInspector {
  /** The URL to open (with `?access=…` when the bind is not loopback). */
  url: string;
  /** The mutation token the page carries (for scripted clients of the API). */
  csrfToken: string;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** Serves the inspector until `close()`. */
export async function startInspector(options: StartOptions): Promise<RunningInspector> {
  const host = options.host ?? '127.0.0.1';
  const loopback = LOOPBACK.has(host);
  const hosts: string[] = [];
  const accessToken = loopback ? undefined : randomBytes(24).toString('hex');
  const inspector = createInspector({
    ...(options.store !== undefined ? { store: options.store } : {}),
    ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
    hosts,
    ...(options.readOnly ? { readOnly: true } : {}),
    ...(accessToken ? { accessToken } : {}),
    ...(options.v1 ? { v1: options.v1 } : {}),
  });
  let running;
  try {
    running = await serve(inspector.handler, { port: options.port ?? 8790, host });
  } catch (err) {
    await inspector.close();
    throw err;
  }
  const port = new URL(running.url).port;
  hosts.push(`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`);
  if (!loopback) hosts.push(`${host.includes(':') ? `[${host}]` : host}:${port}`);
  return {
    url: running.url + (accessToken ? `/?access=${accessToken}` : '/'),
    csrfToken: inspector.csrfToken,
    close: async () => {
      await running.close();
      await inspector.close();
    },
  };
}
