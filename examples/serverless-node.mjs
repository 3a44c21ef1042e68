// glyphfold/serverless under Node's own HTTP server.
//
//   npm run build && node examples/serverless-node.mjs
//   curl -s localhost:8787/v1/render -H 'content-type: application/json' \
//        -d '{"text":"hello, pages","model":"claude-sonnet-4-5"}' | head -c 300
//   curl -s 'localhost:8787/v1/render?page=1' -H 'content-type: application/json' \
//        -d '{"text":"hello, pages","model":"claude-sonnet-4-5"}' -o page1.png
//
// The handler is a plain `(Request) => Promise<Response>`; `toNodeListener` is the only Node glue.
// On an edge runtime you would export `{ fetch: handler }` instead.
import { createServer } from 'node:http';
import process from 'node:process';
import { createHandler } from 'glyphfold/serverless';
import { toNodeListener } from 'glyphfold/serverless/node';

const handler = createHandler({ limits: { maxBodyBytes: 2 * 1024 * 1024, maxPages: 20 } });
const port = Number(process.env.PORT ?? 8787);

const server = createServer(toNodeListener(handler));
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`glyphfold serverless example on http://127.0.0.1:${port}/v1/health\n`);
});
process.on('SIGINT', () => server.close(() => process.exit(0)));
