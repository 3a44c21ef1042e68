/**
 * The page and its bundled assets. `npm run build` (through `prepack`) bundles `src/inspector/ui/`
 * with esbuild into `dist/inspector/ui/` (app.js, app.css): no CDN, nothing fetched at run time.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: the nearest folder above this module holding glyphfold's package.json. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'glyphfold')
      return dir;
    const up = dirname(dir);
    if (up === dir)
      throw new Error(`inspector: no glyphfold package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

/** Where the bundled UI lives. */
export const UI_DIR = join(packageRoot(), 'dist', 'inspector', 'ui');

const FILES: Readonly<Record<string, string>> = {
  '/app.js': 'text/javascript; charset=utf-8',
  '/app.css': 'text/css; charset=utf-8',
};

const cache = new Map<string, string>();

function asset(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    const file = join(UI_DIR, name);
    if (!existsSync(file))
      throw new Error(`inspector: ${file} is missing; run 'npm run build' (it bundles the UI)`);
    text = readFileSync(file, 'utf8');
    cache.set(name, text);
  }
  return text;
}

const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page: the mutation token rides in a meta tag that only a same-origin script can read. */
function page(token: string, readOnly: boolean): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="gf-token" content="${escape(token)}">
<meta name="gf-read-only" content="${readOnly ? '1' : '0'}">
<title>glyphfold inspector</title>
<link rel="stylesheet" href="/app.css">
</head>
<body>
<div id="app"></div>
<script type="module" src="/app.js"></script>
</body>
</html>
`;
}

/** Answers GET for the page and its assets; anything else is a 404 JSON error. */
export function serveAsset(pathname: string, token: string, readOnly: boolean): Response {
  if (pathname === '/' || pathname === '/index.html')
    return new Response(page(token, readOnly), {
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
    });
  const type = FILES[pathname];
  if (type) return new Response(asset(pathname.slice(1)), { headers: { 'content-type': type } });
  return new Response(JSON.stringify({ error: { status: 404, message: `no such page ${pathname}` } }), {
    status: 404,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
}
