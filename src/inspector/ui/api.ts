/** The page's client of the inspector API: JSON in and out, errors as thrown messages. */

const meta = (name: string): string =>
  document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';

/** The mutation token the server put in the page (a cross-origin page cannot read it). */
export const TOKEN = meta('gf-token');
export const READ_ONLY = meta('gf-read-only') === '1';

export class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function parse<T>(r: Response): Promise<T> {
  const value = (await r.json()) as T & { error?: { message: string } };
  if (!r.ok) throw new RequestError(r.status, value.error?.message ?? `HTTP ${r.status}`);
  return value;
}

export async function get<T>(
  path: string,
  query: Record<string, string | number | null | undefined> = {},
): Promise<T> {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query))
    if (v !== null && v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return parse<T>(await fetch(s ? `${path}?${s}` : path));
}

export async function post<T>(path: string, body: unknown): Promise<T> {
  return parse<T>(
    await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-glyphfold-token': TOKEN },
      body: JSON.stringify(body),
    }),
  );
}

export const base = (conversation: string, agent: string): string =>
  `/api/c/${encodeURIComponent(conversation)}/${encodeURIComponent(agent)}`;

export interface Agent {
  agent: string;
  items: number;
  turn: number;
  tip: string | null;
}
export interface ConversationRow {
  id: string;
  created: string;
  agents: Agent[];
  forkedFrom: { conversation: string; agent: string; tip: string | null } | null;
  forks: string[];
  lastActivity: string;
  match: { hits: number; first?: string };
}
export interface TreeRow {
  id: string;
  parent: string | null;
  lane: number;
  kind: string;
  author: string;
  turn: number;
  time: string;
  preview: string;
  children: number;
  tip: boolean;
  active: boolean;
  checkpoints: string[];
  forks: string[];
}
export interface Checkpoint {
  label: string;
  at: string | null;
  turn: number;
  time: string;
}
export interface TreePage {
  tip: string | null;
  turn: number;
  total: number;
  offset: number;
  index?: number;
  checkpoints: Checkpoint[];
  problems: { kind: string; message: string }[];
  header: { forkedFrom?: { conversation: string; tip: string | null } } | null;
  rows: TreeRow[];
}
export interface PathRow {
  id: string;
  kind: string;
  author: string;
  turn: number;
  time: string;
  preview: string;
}
export interface TokenRow {
  author: string;
  kind: string;
  items: number;
  tokens: number;
}
