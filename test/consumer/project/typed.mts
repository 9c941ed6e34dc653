// A typed ESM consumer: type-checked, never run. It uses the public types of
// both entry points the way a service would, so a declaration that depends on
// our own compiler options fails here.
import {
  createChangeCache,
  createClient,
  DEFAULT_BACKOFF,
  httpTransport,
  HttpRedirectError,
  InvalidRequestMetaError,
  McpActorsError,
  stdioTransport,
  type CallToolResult,
  type ClientState,
  type ClosedReason,
  type IterableListenStream,
  type ListenStream,
  type SubscriberMessage,
} from 'mcp-actors';
import { createInProcessBus, createServer, DEFAULT_LIMITS, type ChangeEvent, type ToolHandler } from 'mcp-actors/server';
import { connectionActorOf, createTestClient, SimulatedClock, streamActorOf, type TestSeams } from 'mcp-actors/testing';

const describe = (reason: ClosedReason): string => {
  switch (reason.type) {
    case 'reconnect_exhausted':
      return `gave up after ${reason.attempts} attempts`;
    case 'delivery_dropped':
      return `shed at ${reason.cap}`;
    default:
      return reason.type;
  }
};

const client = createClient({
  transport: process.env.URL ? httpTransport({ url: process.env.URL }) : stdioTransport({ command: 'node', args: ['server.mjs'], stderr: 'inherit' }),
  era: 'auto',
  reconnect: { ...DEFAULT_BACKOFF, maxAttempts: 3 },
});
await client.connect();
const names: string[] = (await client.listTools()).map((tool) => tool.name);
const ready = client.on('connection.ready', (event) => console.log(event.era, event.generation));
client.onError((error) => console.log(error.message));
const state: ClientState = client.state;
console.log(state, client.serverInfo?.version);
const stream: ListenStream = await client.listen({ toolsListChanged: true }, (message: SubscriberMessage) => {
  if (message.type === 'notification') console.log(message.method, message.params);
  if (message.type === 'closed') console.log(describe(message.reason));
});
const reason: ClosedReason = await stream.closed;
// No subscriber: the stream is the async iterable of its messages.
const iterable: IterableListenStream = await client.listen({ promptsListChanged: true }, { mailboxCap: 16 });
iterable.close();
for await (const message of iterable) if (message.type === 'closed') console.log(describe(message.reason));
const cache = createChangeCache(client, { interest: { tools: true, prompts: false, resources: false, uris: [] } });
const first = names[0]; // string | undefined under noUncheckedIndexedAccess
console.log(first?.length, reason.type, cache.filter, (await cache.tools({ mode: 'stale' })).freshness);
try {
  const meta = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'io.modelcontextprotocol/logLevel': 'debug' } as const;
  const called: CallToolResult = await client.callTool('echo', { text: 'hi' }, { timeoutMs: 1_000, signal: AbortSignal.timeout(2_000), meta });
  for (const block of called.content) if (block.type === 'text') console.log(block.text);
} catch (error) {
  if (error instanceof InvalidRequestMetaError) console.log(error.key, error.problem);
  else if (error instanceof HttpRedirectError) console.log(error.status, error.location);
  else if (error instanceof McpActorsError) console.log(error.code);
}
ready.unsubscribe();
await client.close();
for await (const status of client.status()) if (status.state === 'closed') console.log(status.reason.type);

// The testing entry: a client on a simulated clock and a fixed jitter, and read-only access to its actors.
const seams: TestSeams = { clock: new SimulatedClock(), random: () => 0.5 };
const testClient = createTestClient({ transport: stdioTransport({ command: 'node', args: ['server.mjs'] }), ...seams });
console.log(connectionActorOf(testClient).getSnapshot().status, streamActorOf(stream).getSnapshot().status);

const echo: ToolHandler = (args, context) => {
  void context.progress(1, 1);
  const traceparent: unknown = context.meta.traceparent;
  if (typeof traceparent === 'string') console.log(traceparent);
  return { content: [{ type: 'text', text: String(args.text) }] };
};
const bus = createInProcessBus();
const server = createServer({ name: 'typed', version: '1.0.0', bus, limits: { maxListenStreams: DEFAULT_LIMITS.maxListenStreams } });
server.defineTool('echo', { description: 'Echo', inputSchema: { type: 'object' } }, echo);
const event: ChangeEvent = { type: 'resource_updated', uri: 'file:///x' };
bus.publish(event);
server.notifyToolsListChanged();
await server.close();
