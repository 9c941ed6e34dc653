/**
 * The client over loopback Streamable HTTP against real servers in child
 * processes: the official @modelcontextprotocol/server 2.x (`createMcpHandler`,
 * modern) and @modelcontextprotocol/sdk 1.x (sessionful, legacy).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import {
  ConnectionLostError,
  NegotiationError,
  RequestAbortedError,
  RequestTimeoutError,
  UnserializableMessageError,
} from '../../src/protocol/errors.ts';
import { httpTransport } from '../../src/transport/http.ts';
import { nextEvent, recordEvents } from '../fixtures/client-events.ts';
import { startHttpFixture, type HttpFixture, type HttpFixtureKind } from '../fixtures/http-fixture-process.ts';
import { sharedHttpFixtures } from '../fixtures/shared-http-fixtures.ts';
import { unassignedPort } from '../fixtures/free-port.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const { clients, fixtures } = closedAfterEach({ clients: [] as McpClient[], fixtures: [] as HttpFixture[] });

/** A server of this test's own, for a test that kills or stops it. */
async function serve(kind: HttpFixtureKind, args: string[] = []): Promise<HttpFixture> {
  const fixture = await startHttpFixture(kind, { args });
  fixtures.push(fixture);
  return fixture;
}

// Tests that only connect a fresh client share one server per kind (the official one is stateless per request, the SDK
// 1.x one keeps a session per client); the name is what the negotiation test asserts.
const sharedServers = sharedHttpFixtures();
afterAll(() => sharedServers.stopAll());
const shared = (kind: HttpFixtureKind) => sharedServers.get(kind, kind === 'official' ? ['--name', 'modern-http'] : []);

function connectTo(fixture: HttpFixture, options: Partial<Parameters<typeof createClient>[0]> = {}): McpClient {
  const client = createClient({ transport: httpTransport({ url: fixture.url }), ...options });
  clients.push(client);
  return client;
}

/** Enough attempts to outlast a fixture restart (a node + tsx start-up). */
const patientReconnect = { maxAttempts: 40, baseDelayMs: 25, maxDelayMs: 250 };

const cases: { kind: HttpFixtureKind; era: 'legacy' | 'modern' }[] = [
  { kind: 'official', era: 'modern' },
  { kind: 'legacy', era: 'legacy' },
];

describe('client over loopback HTTP', () => {
  it("'auto' picks modern on the official 2.x server", async () => {
    const client = connectTo(await shared('official'));
    await client.connect();
    expect(client.era).toBe('modern');
    expect(client.serverInfo).toMatchObject({ name: 'modern-http' });
  });

  it("'modern' pins 2026-07-28 on the official 2.x server", async () => {
    const client = connectTo(await shared('official'), { era: 'modern' });
    await client.connect();
    expect(client.era).toBe('modern');
  });

  it("'legacy' initializes the official 2.x server through its stateless 2025 fallback", async () => {
    const client = connectTo(await shared('official'), { era: 'legacy' });
    await client.connect();
    expect(client.era).toBe('legacy');
    expect((await client.callTool('echo', { text: 'stateless' })).content).toEqual([{ type: 'text', text: 'stateless' }]);
  });

  it("'auto' falls back to initialize on the sessionful SDK 1.x server", async () => {
    const client = connectTo(await shared('legacy'));
    await client.connect();
    expect(client.era).toBe('legacy');
    expect(client.protocolVersion).toBe('2025-11-25');
  });

  it("'modern' fails loudly on the legacy server", async () => {
    const client = connectTo(await shared('legacy'), { era: 'modern' });
    await expect(client.connect()).rejects.toBeInstanceOf(NegotiationError);
  });

  it("'legacy' initializes the SDK 1.x server", async () => {
    const client = connectTo(await shared('legacy'), { era: 'legacy' });
    await client.connect();
    expect(client.era).toBe('legacy');
  });

  it('a network failure is an error, not evidence of a legacy server', async () => {
    // Nothing listens there, and no other test's server can be given that port meanwhile.
    const client = createClient({ transport: httpTransport({ url: `http://127.0.0.1:${await unassignedPort()}/mcp` }) });
    clients.push(client);
    const failure = await client.connect().catch((error: unknown) => error);
    expect(failure).not.toBeInstanceOf(NegotiationError);
    expect((failure as Error).cause).toMatchObject({ code: 'ECONNREFUSED' });
    expect(client.era).toBeUndefined();
    expect(client.state).toBe('idle');
  });

  for (const { kind, era } of cases) {
    describe(`${kind} server (${era})`, () => {
      it('a call whose arguments JSON cannot carry rejects with UnserializableMessageError, and the connection stays', async () => {
        const client = connectTo(await shared(kind));
        const events = recordEvents(client);
        await client.connect();
        const failure = await client.callTool('echo', { text: 1n as unknown as string }).catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(UnserializableMessageError);
        expect(failure).toMatchObject({ method: 'tools/call' });
        expect(await client.callTool('echo', { text: 'after' })).toMatchObject({ content: [{ type: 'text', text: expect.stringContaining('after') }] });
        expect(events.map((event) => event.type)).toEqual(['connection.ready']);
      });

      it('lists and calls', async () => {
        const client = connectTo(await shared(kind));
        await client.connect();
        expect(client.era).toBe(era);
        expect((await client.listTools()).map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'slow']));
        expect((await client.listResources()).map((resource) => resource.uri)).toContain('test://resource/1');
        expect((await client.callTool('echo', { text: 'over http' })).content).toEqual([{ type: 'text', text: 'over http' }]);
      });

      it('times out a request and keeps working', async () => {
        const client = connectTo(await shared(kind));
        await client.connect();
        await expect(client.callTool('slow', { ms: 10_000 }, { timeoutMs: 50 })).rejects.toBeInstanceOf(RequestTimeoutError);
        expect((await client.callTool('echo', { text: 'ok' })).content).toEqual([{ type: 'text', text: 'ok' }]);
      });

      it('aborts a request', async () => {
        const client = connectTo(await shared(kind));
        await client.connect();
        const controller = new AbortController();
        const slow = client.callTool('slow', { ms: 10_000 }, { signal: controller.signal });
        controller.abort();
        await expect(slow).rejects.toBeInstanceOf(RequestAbortedError);
        expect((await client.callTool('echo', { text: 'ok' })).content).toEqual([{ type: 'text', text: 'ok' }]);
      });

      it('delivers progress to the call that asked for it', async () => {
        const client = connectTo(await shared(kind));
        await client.connect();
        const progress: unknown[] = [];
        await client.callTool('progress', { steps: 2 }, { onProgress: (params) => progress.push(params.progress) });
        expect(progress).toEqual([1, 2]);
      });

      it('reconnects after the server process is killed and restarted', async () => {
        const fixture = await serve(kind);
        const client = connectTo(fixture, { reconnect: patientReconnect });
        await client.connect();
        const events = recordEvents(client);
        const lost = expect(client.callTool('slow', { ms: 10_000 })).rejects.toBeInstanceOf(ConnectionLostError);
        await fixture.kill();
        await lost;
        const ready = nextEvent(client, 'connection.ready');
        await fixture.restart();
        await ready;
        expect(events[0]?.type).toBe('connection.lost');
        expect(events.filter((event) => event.type === 'connection.reconnecting').length).toBeGreaterThanOrEqual(1);
        expect(client.era).toBe(era);
        expect((await client.callTool('echo', { text: 'again' })).content).toEqual([{ type: 'text', text: 'again' }]);
      });

      it('ends as reconnect_exhausted when the server stays down', async () => {
        const fixture = await serve(kind);
        const client = connectTo(fixture, { reconnect: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 } });
        await client.connect();
        await fixture.kill();
        // Without a request in flight a modern HTTP client only notices on its next request.
        await client.listTools().catch(() => undefined);
        expect(await client.closed).toMatchObject({ type: 'reconnect_exhausted', attempts: 2 });
      });

      it('disconnect() gives disconnected', async () => {
        const client = connectTo(await shared(kind));
        await client.connect();
        await client.close();
        expect(await client.closed).toEqual({ type: 'disconnected' });
      });
    });
  }
});
