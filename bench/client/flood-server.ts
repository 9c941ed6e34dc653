/**
 * A minimal 2026-07-28 MCP server over stdio for the client benchmark, run as
 * a child process:
 *
 *   node --import tsx bench/client/flood-server.ts
 *
 * The official @modelcontextprotocol/server 2.4.0 pushes about 25,000
 * `resources/updated` per second to one listen stream on this machine, below
 * what the clients under test can take, so it would measure the server. This
 * one answers just enough of the protocol for both clients (server/discover,
 * tools/list, subscriptions/listen with an ack that honors the request,
 * notifications/cancelled, ping) and floods from pre-serialized lines.
 *
 * Tool `flood {uri, count}`: writes `count` `notifications/resources/updated`
 * for `uri`, tagged with the id of the listen stream that holds `uri`, in
 * large chunks that respect stdout backpressure, then answers the call.
 */
import { once } from 'node:events';
import { createInterface } from 'node:readline';

const VERSION = '2026-07-28';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'flood-server', version: '1.0.0' } };
const LINES_PER_WRITE = 2_000;

type Id = string | number;
interface Inbound {
  id?: Id;
  method?: string;
  params?: { notifications?: { resourceSubscriptions?: string[] }; requestId?: Id; name?: string; arguments?: { uri?: string; count?: number } };
}

/** Listen id by URI: the stream a flood of that URI is tagged with. */
const streamByUri = new Map<string, Id>();
const urisByStream = new Map<Id, string[]>();

const write = (message: object): boolean => process.stdout.write(`${JSON.stringify(message)}\n`);
const answer = (id: Id, result: object) => write({ jsonrpc: '2.0', id, result: { ...result, resultType: 'complete', _meta: SERVER_INFO } });

const FLOOD_TOOL = {
  name: 'flood',
  description: 'Sends count resources/updated notifications for uri to the listen stream holding it',
  inputSchema: { type: 'object', properties: { uri: { type: 'string' }, count: { type: 'integer' } }, required: ['uri', 'count'] },
};

async function flood(id: Id, uri: string, count: number): Promise<void> {
  const stream = streamByUri.get(uri);
  if (stream !== undefined) {
    const line = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri, _meta: { [SUBSCRIPTION_ID]: stream } } })}\n`;
    const block = line.repeat(LINES_PER_WRITE);
    for (let sent = 0; sent < count; sent += LINES_PER_WRITE) {
      const lines = Math.min(LINES_PER_WRITE, count - sent);
      if (!process.stdout.write(lines === LINES_PER_WRITE ? block : line.repeat(lines))) await once(process.stdout, 'drain');
    }
  }
  answer(id, { content: [{ type: 'text', text: `flooded ${stream === undefined ? 0 : count}` }] });
}

function handle(message: Inbound): void {
  const { id, method, params } = message;
  if (method === 'notifications/cancelled' && params?.requestId !== undefined) {
    for (const uri of urisByStream.get(params.requestId) ?? []) streamByUri.delete(uri);
    urisByStream.delete(params.requestId);
    return;
  }
  if (id === undefined) return;
  switch (method) {
    case 'server/discover':
      answer(id, { supportedVersions: [VERSION], capabilities: { tools: {}, resources: { subscribe: true } } });
      return;
    case 'ping':
      answer(id, {});
      return;
    case 'tools/list':
      answer(id, { tools: [FLOOD_TOOL] });
      return;
    case 'tools/call':
      if (params?.name === 'flood' && typeof params.arguments?.uri === 'string' && typeof params.arguments.count === 'number') {
        void flood(id, params.arguments.uri, params.arguments.count);
      } else {
        write({ jsonrpc: '2.0', id, error: { code: -32602, message: 'unknown tool or bad arguments' } });
      }
      return;
    case 'subscriptions/listen': {
      const uris = params?.notifications?.resourceSubscriptions ?? [];
      urisByStream.set(id, uris);
      for (const uri of uris) streamByUri.set(uri, id);
      write({
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: { resourceSubscriptions: uris }, _meta: { [SUBSCRIPTION_ID]: id } },
      });
      return;
    }
    default:
      write({ jsonrpc: '2.0', id, error: { code: -32601, message: `method not found: ${method}` } });
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (text) => {
  if (text.trim() === '') return;
  handle(JSON.parse(text) as Inbound);
});
lines.on('close', () => process.exit(0));
