/**
 * URL-mode elicitation's two 2025-11-25 companions with every official peer,
 * both ways: the -32042 error a handler throws when the user must first
 * complete a page (UrlElicitationRequiredError, its `elicitations` in
 * `data`), and `notifications/elicitation/complete` when the user has.
 *
 * - Official clients against our server (the fixture's `connect-calendar`
 *   and `finish-sign-in`), over stdio (a child) and loopback HTTP: the 2.x
 *   client in the legacy era and the sdk 1.x client read our -32042 as their
 *   own UrlElicitationRequiredError and get the completion; the 2.x client
 *   in the modern era reads the -32042 (that era has no completion
 *   notification: the client's retry carries the answer).
 * - Our client against the official servers (the same two tools, made with
 *   each SDK's own error class and `createElicitationCompletionNotifier`):
 *   the 2.x server over stdio in the legacy era, the sdk 1.x server over
 *   stdio and sessionful HTTP.
 *
 * Every client declares `elicitation.url`, which both sides require for the
 * completion.
 */
import { Client as OfficialClient, StreamableHTTPClientTransport, UrlElicitationRequiredError as OfficialUrlElicitationRequiredError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as SdkStdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as SdkHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitationCompleteNotificationSchema, ElicitRequestSchema, UrlElicitationRequiredError as SdkUrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { RpcError, UrlElicitationRequiredError } from '../../src/protocol/errors.ts';
import type { JsonObject } from '../../src/protocol/jsonrpc.ts';
import type { McpServer } from '../../src/server/index.ts';
import { httpTransport } from '../../src/transport/http.ts';
import type { TransportFactory } from '../../src/transport/transport.ts';
import { CALENDAR_SIGN_IN } from '../fixtures/calendar-sign-in.ts';
import { startHttpFixture, type HttpFixture } from '../fixtures/http-fixture-process.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { officialStdio, stdioPeer, type SpawnedPeer } from '../fixtures/stdio-peers.ts';
import { STDIO_FIXTURE } from '../server/official-peers.ts';
import { fixtureBundle } from '../setup/fixture-bundle.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const PEER_TIMEOUT = 60_000;
const EXPECTED_ELICITATIONS = [{ mode: 'url', ...CALENDAR_SIGN_IN }];
const COMPLETE = 'notifications/elicitation/complete';
const URL_CAPABLE = { elicitation: { form: {}, url: {} } };

/** One official client, seen the same way whatever its library: what a call threw, and the completions it received. */
interface OfficialPeer {
  callFailure(name: string): Promise<unknown>;
  call(name: string, args: Record<string, unknown>): Promise<unknown>;
  /** Resolves with the completion naming `elicitationId`, once received. */
  completion(elicitationId: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

function completions() {
  const seen: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  return {
    record(params: Record<string, unknown>) {
      seen.push(params);
      for (const wake of waiters.splice(0)) wake();
    },
    async completion(elicitationId: string) {
      for (;;) {
        const found = seen.find((params) => params.elicitationId === elicitationId);
        if (found) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

type Where = { transport: 'stdio' } | { transport: 'http'; url: string };

/** What both libraries' clients offer that a peer is made of. */
interface CallingClient {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

function peerOf(client: CallingClient, completion: OfficialPeer['completion']): OfficialPeer {
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
  return {
    callFailure: (name) => call(name, {}).then(() => undefined, (error: unknown) => error),
    call,
    completion,
    close: () => client.close(),
  };
}

async function officialClient(era: 'legacy' | 'modern', where: Where): Promise<OfficialPeer> {
  const client = new OfficialClient({ name: 'url-elicitation', version: '1.0.0' }, {
    capabilities: URL_CAPABLE,
    ...(era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {}),
  });
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept' }));
  const log = completions();
  client.setNotificationHandler(COMPLETE, (notification: { params?: unknown }) => log.record(notification.params as Record<string, unknown>));
  await client.connect(where.transport === 'stdio'
    ? new StdioClientTransport({ command: process.execPath, args: [fixtureBundle(STDIO_FIXTURE)], stderr: 'inherit' })
    : new StreamableHTTPClientTransport(new URL(where.url)));
  return peerOf(client, log.completion);
}

async function sdkClient(where: Where): Promise<OfficialPeer> {
  const client = new SdkClient({ name: 'url-elicitation', version: '1.0.0' }, { capabilities: URL_CAPABLE });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept' }));
  const log = completions();
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => log.record(notification.params));
  await client.connect(where.transport === 'stdio'
    ? new SdkStdioTransport({ command: process.execPath, args: [fixtureBundle(STDIO_FIXTURE)], stderr: 'inherit' })
    : new SdkHttpTransport(new URL(where.url)));
  return peerOf(client, log.completion);
}

const CLIENTS = [
  { name: '@modelcontextprotocol/client 2.4.0, legacy', era: 'legacy', connect: (where: Where) => officialClient('legacy', where), errorClass: OfficialUrlElicitationRequiredError },
  { name: '@modelcontextprotocol/client 2.4.0, modern', era: 'modern', connect: (where: Where) => officialClient('modern', where), errorClass: OfficialUrlElicitationRequiredError },
  { name: '@modelcontextprotocol/sdk 1.32.2', era: 'legacy', connect: sdkClient, errorClass: SdkUrlElicitationRequiredError },
] as const;

const CELLS = CLIENTS.flatMap((kind) => (['stdio', 'http'] as const).map((transport) => [kind.name, transport, kind] as const));

describe.each(CELLS)('%s against our server over %s', (_name, transport, kind) => {
  let server: McpServer | undefined;
  let peer: OfficialPeer | undefined;
  const connected = async () => {
    if (peer) return peer;
    if (transport === 'stdio') return (peer = await kind.connect({ transport }));
    server = buildFixtureServer();
    return (peer = await kind.connect({ transport, url: (await server.listenHttp({ port: 0 })).url }));
  };
  afterAll(async () => {
    await peer?.close();
    await server?.close();
  });

  it('reads the -32042 of a handler as its own UrlElicitationRequiredError, with the elicitations', { timeout: PEER_TIMEOUT }, async () => {
    const failure = await (await connected()).callFailure('connect-calendar');
    expect(failure).toBeInstanceOf(kind.errorClass);
    expect((failure as { elicitations: unknown }).elicitations).toEqual(EXPECTED_ELICITATIONS);
  });

  if (kind.era === 'legacy') {
    it('receives notifications/elicitation/complete for the elicitation', { timeout: PEER_TIMEOUT }, async () => {
      const client = await connected();
      await client.call('finish-sign-in', { elicitationId: CALENDAR_SIGN_IN.elicitationId });
      expect(await client.completion(CALENDAR_SIGN_IN.elicitationId)).toEqual({ elicitationId: CALENDAR_SIGN_IN.elicitationId });
    });
  }
});

/** The official servers with the two tools, each started per row. */
const SERVERS: readonly { name: string; era: 'legacy' | 'auto'; start(): Promise<{ factory: TransportFactory; stop(): Promise<void> }> }[] = [
  { name: '@modelcontextprotocol/server 2.4.0 serveStdio, legacy', era: 'legacy', start: async () => stdioRow(officialStdio()) },
  { name: '@modelcontextprotocol/sdk 1.32.2 server over stdio', era: 'auto', start: async () => stdioRow(stdioPeer('sdk-stdio-server.ts')) },
  {
    name: '@modelcontextprotocol/sdk 1.32.2 server over sessionful HTTP',
    era: 'auto',
    async start() {
      const fixture: HttpFixture = await startHttpFixture('legacy');
      return { factory: httpTransport({ url: fixture.url }), stop: () => fixture.stop() };
    },
  },
];

function stdioRow(spawned: SpawnedPeer) {
  return {
    factory: spawned.factory,
    stop: async () => {
      for (const transport of spawned.transports) if (transport.pid !== undefined && transport.exitStatus === undefined) process.kill(transport.pid, 'SIGKILL');
    },
  };
}

const { clients } = closedAfterEach({ clients: [] as McpClient[] });

describe.each(SERVERS.map((row) => [row.name, row] as const))('our client against %s', (_name, row) => {
  let started: Awaited<ReturnType<typeof row.start>> | undefined;
  afterAll(async () => started?.stop());

  async function connect(): Promise<{ client: McpClient; completion: Promise<JsonObject> }> {
    started ??= await row.start();
    const client = createClient({ transport: started.factory, era: row.era, reconnect: false });
    clients.push(client);
    client.onRequest('elicitation/create', () => ({ action: 'accept' }), { capability: URL_CAPABLE.elicitation });
    const completion = new Promise<JsonObject>((resolve) => client.onNotification(COMPLETE, resolve));
    await client.connect();
    expect(client.era).toBe('legacy');
    return { client, completion };
  }

  it('rejects with UrlElicitationRequiredError, an RpcError with the elicitations', { timeout: PEER_TIMEOUT }, async () => {
    const { client } = await connect();
    const failure = await client.callTool('connect-calendar').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UrlElicitationRequiredError);
    expect(failure).toBeInstanceOf(RpcError);
    expect(failure).toMatchObject({ rpcCode: -32042, elicitations: EXPECTED_ELICITATIONS });
  });

  it('hands notifications/elicitation/complete to onNotification', { timeout: PEER_TIMEOUT }, async () => {
    const { client, completion } = await connect();
    await client.callTool('finish-sign-in', { elicitationId: CALENDAR_SIGN_IN.elicitationId });
    // Over HTTP it comes on the session's GET stream, not with the answer: waited for, not assumed there.
    expect(await completion).toEqual({ elicitationId: CALENDAR_SIGN_IN.elicitationId });
  });
});
