/**
 * The serverless core: `(Request) => Promise<Response>`, importing no runtime. Platform glue lives in
 * thin adapters (`src/adapters/node.ts` for Node's HTTP server); edge runtimes call it directly.
 *
 * Routes (see docs/serverless.md for every status):
 * - `POST /v1/render` — JSON `{text | transcript, model, cell?, scale?, allowGuess?}` → JSON pages
 *   with base64 PNGs; with `?page=N` the single PNG of page N (`image/png`).
 * - `GET /v1/health` — liveness and the limits in force.
 */
import { countPages, normalize, render } from '../render/index.js';
import { bestPageShape, imageTokens, resolveProfile } from '../providers/index.js';
import { builtInLegibility, readableVariants } from '../providers/legibility.js';
import { parseVariant, variantCell } from '../render/variant.js';
import { toBase64 } from './base64.js';
import { parseJson, readBody } from './body.js';
import { HttpError } from './errors.js';
import { validateRenderBody, type RenderRequestBody } from './request.js';
import type { CellName } from '../render/cells.js';

/** Size limits; every one maps to a 413 with its own error code. */
export interface Limits {
  /** Request body, counted on the stream (not only Content-Length). */
  maxBodyBytes: number;
  /** Text length in UTF-16 code units, after a transcript is turned into text. */
  maxTextChars: number;
  /** Pages one request may render (checked by layout before any pixel is drawn). */
  maxPages: number;
}

export const DEFAULT_LIMITS: Readonly<Limits> = {
  maxBodyBytes: 4 * 1024 * 1024,
  maxTextChars: 1_000_000,
  maxPages: 40,
};

export interface HandlerOptions {
  limits?: Partial<Limits>;
  /** Accept guessed profiles for unknown model ids for every request (default: only when asked). */
  allowGuess?: boolean;
}

/** One page of the JSON response. */
export interface PageJson {
  width: number;
  height: number;
  chars: number;
  /** Image tokens the profile's pricing rule charges for this page. */
  tokens: number;
  /** The PNG, base64 without a `data:` prefix. */
  png: string;
}

/** The JSON response of `POST /v1/render`. */
export interface RenderResponseJson {
  pages: PageJson[];
  /** Image tokens of all pages together, by the profile's rule. */
  tokens: number;
  chars: number;
  escapes: number;
  /** What the transcript importer noticed (repaired pairing, skipped lines); absent for text. */
  warnings?: string[];
  profile: {
    id: string;
    normalizedId: string;
    family: string;
    provider: string;
    route: string;
    guessed: boolean;
    note?: string;
    shape: {
      width: number;
      height: number;
      cell: string;
      scale: number;
      cols: number;
      rows: number;
      charsPerPage: number;
      detail?: string;
      /** Most pages of this shape one request to the provider may carry. */
      pagesPerRequest: number;
      verified: boolean;
    };
  };
}

export type FetchHandler = (request: Request) => Promise<Response>;

type Route = Partial<Record<string, (request: Request, url: URL) => Promise<Response>>>;

const json = (value: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(value), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });

/** Builds a handler with its own limits. `handler` below is one with the defaults. */
export function createHandler(options: HandlerOptions = {}): FetchHandler {
  const limits: Limits = { ...DEFAULT_LIMITS, ...options.limits };

  const routes: Record<string, Route> = {
    '/v1/render': {
      POST: (request, url) => renderRoute(request, url, limits, options.allowGuess ?? false),
    },
    '/v1/health': {
      GET: async () => json({ ok: true, limits }),
      // Load balancers probe with HEAD: same status and headers, no body.
      HEAD: async () =>
        new Response(null, { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } }),
    },
  };

  return async (request) => {
    try {
      const url = new URL(request.url);
      // Own keys only: a path or method such as `constructor` must not reach Object.prototype.
      const route = Object.hasOwn(routes, url.pathname) ? routes[url.pathname] : undefined;
      if (!route)
        throw new HttpError(
          404,
          'not_found',
          `no route ${url.pathname}; routes: ${Object.keys(routes).join(', ')}`,
        );
      const run = Object.hasOwn(route, request.method) ? route[request.method] : undefined;
      if (!run) {
        const allow = Object.keys(route).join(', ');
        throw new HttpError(
          405,
          'method_not_allowed',
          `${request.method} ${url.pathname} is not allowed; use ${allow}`,
          {
            allow,
          },
        );
      }
      return await run(request, url);
    } catch (err) {
      if (err instanceof HttpError) return err.getResponse();
      // Unexpected failures are ours, not the client's: no internals in the body.
      console.error('glyphfold serverless: internal error', err);
      return new HttpError(500, 'internal', 'internal error while rendering').getResponse();
    }
  };
}

/** The handler with default limits: `export default { fetch: handler }` on edge runtimes. */
export const handler: FetchHandler = createHandler();

function parsePageParam(url: URL): number | undefined {
  const raw = url.searchParams.get('page');
  if (raw === null) return undefined;
  if (!/^[1-9]\d{0,5}$/.test(raw)) {
    throw new HttpError(
      400,
      'bad_request',
      `query 'page' must be a page number from 1, found ${JSON.stringify(raw)}`,
    );
  }
  return Number(raw);
}

/**
 * The text to render. Transcript support is imported on first use: most requests post text, and a
 * cold start should not pay for parsing every importer.
 */
async function contentText(body: RenderRequestBody): Promise<{ text: string; warnings: string[] }> {
  if (body.text !== undefined) return { text: body.text, warnings: [] };
  const [{ importTranscript }, { formatItems }] = await Promise.all([
    import('../transcript/import/index.js'),
    import('../compaction/text.js'),
  ]);
  let imported;
  try {
    imported = importTranscript(body.transcript);
  } catch (err) {
    throw new HttpError(422, 'bad_transcript', `transcript could not be read: ${(err as Error).message}`);
  }
  // The snapshot rung's own format, so served pages match what compaction renders.
  return { text: formatItems(imported.items), warnings: imported.warnings };
}

/**
 * The page a request that names no cell gets: of the variants measured within the default legibility
 * floor for the model's reader family (src/providers/legibility.json), the plain ones this endpoint
 * draws (a cell and a scale, lines layout), the one with the smallest cell; or the table's fallback
 * (the family's, then any family's most legible). See docs/compaction.md "legibility first".
 */
function legibleCell(family: string | undefined): { cell: CellName; scale: number } {
  const plain = readableVariants(builtInLegibility(), family)
    .variants.map((r) => parseVariant(r.variant))
    .filter((v) => v.layout === 'lines' && v.spacing.x === 0 && v.spacing.y === 0);
  if (plain.length === 0) return { cell: '6x10', scale: 1 };
  const area = (v: (typeof plain)[number]) => variantCell(v).width * variantCell(v).height;
  const best = plain.reduce((a, b) => (area(b) < area(a) ? b : a));
  return { cell: best.cell, scale: best.scale };
}

/** `bestPageShape`, with "no page of this cell and scale fits the model" as a 422 naming both. */
function pageShape(
  profile: Parameters<typeof bestPageShape>[0],
  model: string,
  cell: CellName,
  scale: number,
  imagesInRequest: number,
): ReturnType<typeof bestPageShape> {
  try {
    return bestPageShape(profile, { cell, scale, imagesInRequest });
  } catch (err) {
    throw new HttpError(
      422,
      'no_page_shape',
      `no page of cell ${cell} at scale ${scale} fits model '${model}' (${profile.family}) without resizing: ` +
        `use a smaller cell or scale (${(err as Error).message})`,
    );
  }
}

async function renderRoute(
  request: Request,
  url: URL,
  limits: Limits,
  allowGuessAlways: boolean,
): Promise<Response> {
  const page = parsePageParam(url);
  const type = request.headers.get('content-type');
  if (type !== null && !/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
    throw new HttpError(
      415,
      'unsupported_media_type',
      `Content-Type must be application/json, found ${type}`,
    );
  }
  const body = validateRenderBody(parseJson(await readBody(request, limits.maxBodyBytes)));
  const { text, warnings } = await contentText(body);
  if (text.length > limits.maxTextChars) {
    throw new HttpError(
      413,
      'text_too_long',
      `text is ${text.length} characters; the limit is ${limits.maxTextChars}`,
    );
  }
  if (normalize(text) === '') {
    throw new HttpError(422, 'empty_text', 'nothing to render: the text is empty or only whitespace');
  }

  const resolved = resolveProfile(body.model);
  if (resolved.guessed && !(body.allowGuess ?? allowGuessAlways)) {
    throw new HttpError(
      422,
      'unknown_model',
      `no profile is known for model '${body.model}'; the guess would be '${resolved.profile.family}'` +
        `${resolved.note ? ` (${resolved.note})` : ''}. Send "allowGuess": true to render with the guess`,
    );
  }
  const profile = resolved.profile;
  if (!profile.vision) {
    throw new HttpError(
      422,
      'no_vision',
      `model '${body.model}' (${profile.family}) has no vision: it cannot read snapshot pages; summarize instead`,
    );
  }
  const chosen = body.cell === undefined ? legibleCell(profile.readerFamily) : undefined;
  const cell = body.cell ?? chosen!.cell;
  const scale = body.scale ?? chosen?.scale ?? 1;
  // bestPageShape memoises per profile and image-count bucket, so calling it per request is cheap.
  let shape = pageShape(profile, body.model, cell, scale, 1);
  let options = { shape: { width: shape.width, height: shape.height }, cell, scale };
  // Layout is cheap and draws nothing: refuse oversized jobs before spending time on pixels.
  let layout = countPages(text, options);
  // More pages than the model takes in one request: no shape exists for that count (checked before
  // asking for one, which would throw).
  if (layout.pages > profile.images.maxPerRequest) {
    throw new HttpError(
      413,
      'too_many_pages',
      `text needs ${layout.pages} pages at ${shape.width}x${shape.height} (${cell}, scale ${scale}); ` +
        `${profile.family} takes at most ${profile.images.maxPerRequest} images per request`,
    );
  }
  if (layout.pages > 1) {
    // Some providers cap image sides when a request carries many images (Anthropic: > 20 → 2000 px),
    // so the shape depends on the page count; one re-layout settles it (a smaller page only adds pages
    // within the same rule).
    const many = pageShape(profile, body.model, cell, scale, layout.pages);
    if (many.width !== shape.width || many.height !== shape.height) {
      shape = many;
      options = { shape: { width: shape.width, height: shape.height }, cell, scale };
      layout = countPages(text, options);
    }
  }
  if (layout.pages > limits.maxPages) {
    throw new HttpError(
      413,
      'too_many_pages',
      `text needs ${layout.pages} pages at ${shape.width}x${shape.height} (${cell}, scale ${scale}); the limit is ${limits.maxPages}`,
    );
  }
  if (page !== undefined && page > layout.pages) {
    throw new HttpError(
      422,
      'page_out_of_range',
      `page ${page} does not exist: the text fills ${layout.pages} page(s)`,
    );
  }

  const result = await render(text, options);
  const detail = shape.detail !== undefined ? { detail: shape.detail } : undefined;
  const pages = result.pages.map((p) => ({
    page: p,
    tokens: imageTokens(profile, p.width, p.height, detail),
  }));
  const tokens = pages.reduce((sum, p) => sum + p.tokens, 0);

  if (page !== undefined) {
    const one = pages[page - 1]!;
    return new Response(one.page.png, {
      status: 200,
      headers: {
        'content-type': 'image/png',
        'x-glyphfold-pages': String(pages.length),
        'x-glyphfold-page-tokens': String(one.tokens),
        'x-glyphfold-page-chars': String(one.page.chars),
        'x-glyphfold-tokens': String(tokens),
      },
    });
  }

  const out: RenderResponseJson = {
    pages: pages.map(({ page: p, tokens: t }) => ({
      width: p.width,
      height: p.height,
      chars: p.chars,
      tokens: t,
      png: toBase64(p.png),
    })),
    tokens,
    chars: result.chars,
    escapes: result.escapes,
    ...(warnings.length > 0 ? { warnings } : {}),
    profile: {
      id: resolved.id,
      normalizedId: resolved.normalizedId,
      family: profile.family,
      provider: profile.provider,
      route: resolved.route,
      guessed: resolved.guessed,
      ...(resolved.note !== undefined ? { note: resolved.note } : {}),
      shape: {
        width: shape.width,
        height: shape.height,
        cell,
        scale,
        cols: shape.cols,
        rows: shape.rows,
        charsPerPage: shape.charsPerPage,
        ...(shape.detail !== undefined ? { detail: shape.detail } : {}),
        pagesPerRequest: shape.pagesPerRequest,
        verified: shape.verified,
      },
    },
  };
  return json(out);
}
