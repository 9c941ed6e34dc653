/**
 * The official servers as peers of our client, one row each for the interop
 * matrix (our-client.process.test.ts): which transport and era, how to start it,
 * what it lists, what one read and one call return, and how to make it send
 * list changes and resource updates.
 *
 * A stdio peer is a child our client spawns per connection; `stopStdioPeers()`
 * kills what outlived its client (after each test). An HTTP peer is one
 * server for all of its row's tests, started by the first `open()`: they
 * only list, read, call and provoke notifications on sessions of their own,
 * and starting an official server per test was most of the file's CPU.
 * `stopAllServers()` (after the row, or the file) stops every one.
 */
import { expect } from 'vitest';
import type { McpClient } from '../../src/client/client.ts';
import type { Era } from '../../src/protocol/versions.ts';
import { httpTransport } from '../../src/transport/http.ts';
import type { TransportFactory } from '../../src/transport/transport.ts';
import { startEverythingHttp, type EverythingHttp } from '../fixtures/everything-http.ts';
import { RESOURCE_URIS } from '../fixtures/http-fixture-args.ts';
import { startHttpFixture, type HttpFixture } from '../fixtures/http-fixture-process.ts';
import { everythingStdio, officialStdio, stdioPeer, type SpawnedPeer } from '../fixtures/stdio-peers.ts';

export const TOOLS_CHANGED = 'notifications/tools/list_changed';
export const PROMPTS_CHANGED = 'notifications/prompts/list_changed';
export const RESOURCES_CHANGED = 'notifications/resources/list_changed';
export const UPDATED = 'notifications/resources/updated';

/** What a test needs from the subscriber it watches with (test/fixtures/subscriber-inbox.ts). */
export interface Watching {
  /** Each notification delivered so far as `method uri`. */
  notifications(): string[];
  /** Resolves once `line` is among the notifications. */
  until(line: string): Promise<void>;
}

/** One row of the matrix. Expected lists are values for `toEqual` (exact arrays, or `expect.arrayContaining`). */
export interface ServerPeer {
  readonly name: string;
  readonly transport: 'stdio' | 'http';
  readonly era: Era;
  /** The era our client is told to ask for: `auto` (probe, then fall back), unless a peer that speaks both is to be met in the legacy one. */
  readonly ask: 'auto' | 'legacy';
  /** Starts the server, or prepares to spawn it (an HTTP peer already running is reused), and gives the transport for `createClient`. */
  open(): Promise<TransportFactory>;
  readonly lists: { tools: unknown; prompts: unknown; resources: unknown; resourceTemplates: unknown };
  readonly read: { uri: string; text: unknown };
  readonly call: { name: string; args: Record<string, string>; text: string };
  /** A tool with an outputSchema, called: its structured content. */
  readonly structured: { name: string; args: Record<string, string>; content: Record<string, unknown> };
  /**
   * The tool that answers with the `_meta` its handler got (the SDKs' `_meta` with the modern envelope lifted out),
   * as JSON text; undefined for a server that has none (server-everything), where only the wire shows the keys.
   */
  readonly requestMeta: string | undefined;
  /** The URI the test watches for updates. */
  readonly watched: string;
  /**
   * Makes the server send list changes and updates (of the watched URI and
   * of another), waits for them through `watching`, and returns the lines
   * the subscriber must have received by then, in order.
   */
  provoke(client: McpClient, watching: Watching): Promise<string[]>;
}

const spawned: SpawnedPeer[] = [];
/** The running HTTP peers, by the `start` function that made each. */
const httpFixtures = new Map<() => Promise<HttpFixture | EverythingHttp>, Promise<HttpFixture | EverythingHttp>>();

/** Kills the stdio children that outlived their client. */
export function stopStdioPeers(): void {
  for (const transport of spawned.splice(0).flatMap((peer) => peer.transports)) {
    if (transport.pid !== undefined && transport.exitStatus === undefined) process.kill(transport.pid, 'SIGKILL');
  }
}

/** Kills every server started here: stdio children and HTTP peers; resolves once the HTTP peers exited. */
export async function stopAllServers(): Promise<void> {
  stopStdioPeers();
  const running = [...httpFixtures.values()];
  httpFixtures.clear();
  // A peer that failed to start has nothing to stop; its test already failed with why.
  await Promise.all(running.map((started) => started.then((fixture) => fixture.stop(), () => undefined)));
}

const stdio = (spawn: () => SpawnedPeer) => async () => {
  const peer = spawn();
  spawned.push(peer);
  return peer.factory;
};

const http = (start: () => Promise<HttpFixture | EverythingHttp>) => async () => {
  if (!httpFixtures.has(start)) httpFixtures.set(start, start());
  const fixture = await httpFixtures.get(start)!;
  return httpTransport({ url: fixture.url });
};

const [WATCHED, OTHER] = [RESOURCE_URIS[0]!, RESOURCE_URIS[1]!];

/** The fixtures' `emit` tool: updates of another URI and of the watched one, then every list change, resources last. */
async function emitEverything(client: McpClient, watching: Watching): Promise<string[]> {
  await client.callTool('emit', { kind: 'updated', uri: OTHER });
  await client.callTool('emit', { kind: 'updated', uri: WATCHED });
  for (const kind of ['tools', 'prompts', 'resources']) await client.callTool('emit', { kind });
  await watching.until(RESOURCES_CHANGED);
  return [`${UPDATED} ${WATCHED}`, TOOLS_CHANGED, PROMPTS_CHANGED, RESOURCES_CHANGED];
}

const FILLERS = [1, 2, 3, 4, 5].map((n) => `filler-${n}`);
const echoCall = { name: 'echo', args: { text: 'across' }, text: 'across' };
/** The official fixtures' tool with an outputSchema (test/fixtures/official-fixture-tools.ts). */
const measureCall = { name: 'measure', args: { text: 'across' }, content: { length: 6, upper: 'ACROSS' } };

/** The official server 2.4.0 over serveStdio (test/fixtures/official-stdio-server.ts), in the era the client asks for. */
const officialStdioPeer = (era: Era): ServerPeer => ({
  name: `@modelcontextprotocol/server 2.4.0 serveStdio, ${era}`,
  transport: 'stdio',
  era,
  ask: era === 'legacy' ? 'legacy' : 'auto',
  open: stdio(() => officialStdio()),
  lists: {
    tools: ['echo', 'slow', 'emit', 'progress', 'subscriptions', 'measure', 'connect-calendar', 'finish-sign-in', 'request-meta', ...FILLERS],
    prompts: ['greeting'],
    resources: RESOURCE_URIS,
    resourceTemplates: [],
  },
  read: { uri: OTHER, text: 'Resource 2' },
  call: echoCall,
  structured: measureCall,
  requestMeta: 'request-meta',
  watched: WATCHED,
  provoke: emitEverything,
});

/** What the HTTP fixtures of both SDKs list. */
const fixtureLists = (tools: string[]) => ({ tools, prompts: ['greeting'], resources: RESOURCE_URIS, resourceTemplates: [] });
const fixtureRead = { uri: OTHER, text: `content of ${OTHER}` };

const sdkPeer = (transport: 'stdio' | 'http'): ServerPeer => ({
  name: '@modelcontextprotocol/sdk 1.32.2 server',
  transport,
  era: 'legacy',
  ask: 'auto',
  open: transport === 'stdio' ? stdio(() => stdioPeer('sdk-stdio-server.ts')) : http(() => startHttpFixture('legacy')),
  lists: fixtureLists(['echo', 'slow', 'emit', 'progress', 'subscriptions', 'measure', 'connect-calendar', 'finish-sign-in', 'request-meta']),
  read: fixtureRead,
  call: echoCall,
  structured: measureCall,
  requestMeta: 'request-meta',
  watched: WATCHED,
  provoke: emitEverything,
});

const EVERYTHING_DOC = 'demo://resource/static/document/architecture.md';

/**
 * server-everything has no tool that changes the tool or prompt list on cue:
 * it sends resource updates for subscribed URIs every 5 s once
 * `toggle-subscriber-updates` is on, and `gzip-file-as-resource` adds a
 * session resource (resources/list_changed).
 */
async function everythingChanges(client: McpClient, watching: Watching): Promise<string[]> {
  await client.callTool('toggle-subscriber-updates');
  await watching.until(`${UPDATED} ${EVERYTHING_DOC}`);
  await client.callTool('toggle-subscriber-updates');
  await client.callTool('gzip-file-as-resource', { name: 'interop.txt.gz', data: 'data:text/plain,interop', outputType: 'resourceLink' });
  await watching.until(RESOURCES_CHANGED);
  const resources = (await client.listResources()).map((resource) => resource.uri);
  if (!resources.includes('demo://resource/session/interop.txt.gz')) throw new Error(`the new resource is not listed: ${resources.join(', ')}`);
  // One update or more (the 5 s pace may fire again before the toggle is off), each for the watched URI; then the list change.
  const updates = watching.notifications().filter((line) => line.startsWith(UPDATED)).length;
  return [...Array<string>(updates).fill(`${UPDATED} ${EVERYTHING_DOC}`), RESOURCES_CHANGED];
}

const everythingPeer = (transport: 'stdio' | 'http'): ServerPeer => ({
  name: '@modelcontextprotocol/server-everything 2026.8.31',
  transport,
  era: 'legacy',
  ask: 'auto',
  open: transport === 'stdio' ? stdio(everythingStdio) : http(startEverythingHttp),
  lists: {
    tools: expect.arrayContaining(['echo', 'get-sum', 'toggle-subscriber-updates', 'gzip-file-as-resource']),
    prompts: expect.arrayContaining([]),
    resources: expect.arrayContaining([EVERYTHING_DOC]),
    resourceTemplates: ['demo://resource/dynamic/text/{resourceId}', 'demo://resource/dynamic/blob/{resourceId}'],
  },
  read: { uri: EVERYTHING_DOC, text: expect.stringContaining('Everything Server – Architecture') },
  call: { name: 'echo', args: { message: 'across' }, text: 'Echo: across' },
  // Its outputSchema is made from zod.
  structured: { name: 'get-structured-content', args: { location: 'Chicago' }, content: { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 } },
  requestMeta: undefined,
  watched: EVERYTHING_DOC,
  provoke: everythingChanges,
});

/** Every row of the matrix. */
export const SERVER_PEERS: readonly ServerPeer[] = [
  officialStdioPeer('modern'),
  officialStdioPeer('legacy'),
  {
    name: '@modelcontextprotocol/server 2.4.0 createMcpHandler, modern',
    transport: 'http',
    era: 'modern',
    ask: 'auto',
    open: http(() => startHttpFixture('official')),
    lists: fixtureLists(['echo', 'slow', 'emit', 'measure', 'progress', 'request-meta']),
    read: fixtureRead,
    call: echoCall,
    structured: measureCall,
    requestMeta: 'request-meta',
    watched: WATCHED,
    provoke: emitEverything,
  },
  sdkPeer('stdio'),
  sdkPeer('http'),
  everythingPeer('stdio'),
  everythingPeer('http'),
];
