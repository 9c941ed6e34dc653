/**
 * A small Node service that keeps one MCP server's tool list fresh through
 * change notifications and answers from the change cache:
 *
 *   node --import tsx examples/tool-list-service.ts [--port 8080] -- <server command> [args...]
 *
 *   GET /tools          the tool names, with the cache's state and freshness;
 *                       waits (up to 2 s) for a refetch in progress
 *   GET /tools?stale=1  answers at once, the value marked stale if it is
 *   GET /state          the cache's state and the filter it asked the server for
 *
 * The server is spawned over stdio and respawned if it dies; the cache
 * listens for `tools` changes in whichever era the server speaks. State
 * changes are logged to stderr. On startup it prints `listening on <url>`.
 */
import { createServer, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import { createChangeCache } from '../src/cache/change-cache.ts';
import { createClient } from '../src/client/client.ts';
import { stdioTransport } from '../src/transport/stdio.ts';

const { values, positionals } = parseArgs({
  options: { port: { type: 'string', default: '8080' } },
  allowPositionals: true,
});
const [command, ...args] = positionals;
if (command === undefined) {
  process.stderr.write('usage: tool-list-service.ts [--port 8080] -- <server command> [args...]\n');
  process.exit(2);
}

const client = createClient({ transport: stdioTransport({ command, args, stderr: 'inherit' }) });
await client.connect();
const cache = createChangeCache(client, { interest: { tools: true } });
// Serve once the cache has settled on how it keeps the list fresh (a stream, or none to be had).
const settled = new Promise<void>((resolve) => {
  cache.subscribe((event) => {
    if (event.type === 'state') process.stderr.write(`cache: ${event.previous} -> ${event.state}\n`);
    if (event.type === 'replaced') process.stderr.write(`cache: ${event.key} replaced\n`);
    if (event.type === 'state' && event.state !== 'negotiating') resolve();
  });
});
await settled;

const send = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

const http = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (request.method !== 'GET') return send(response, 405, { error: 'GET only' });
  if (url.pathname === '/state') return send(response, 200, { state: cache.state, filter: cache.filter });
  if (url.pathname !== '/tools') return send(response, 404, { error: 'try /tools or /state' });
  cache.tools({ mode: url.searchParams.has('stale') ? 'stale' : 'wait', timeoutMs: 2_000 }).then(
    (read) =>
      send(response, 200, {
        state: cache.state,
        freshness: read.freshness,
        fetchedAt: new Date(read.fetchedAt).toISOString(),
        tools: read.value.map((tool) => tool.name),
      }),
    (error: Error) => send(response, 503, { state: cache.state, error: error.message }),
  );
});

http.listen(Number(values.port), '127.0.0.1', () => {
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : values.port;
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
});

const stop = async () => {
  http.close();
  await cache.close();
  await client.close();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
