/**
 * Request traces with real peers: the official 2.x client calling our server over loopback HTTP in both eras (the
 * server's channel), and our client calling the official server 2.4.0 over stdio (the client's channel).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT_REQUEST_CHANNEL, createClient, type ClientRequestTrace, type McpClient } from '../../src/index.ts';
import { SERVER_REQUEST_CHANNEL, type McpServer, type ServerRequestTrace } from '../../src/server/index.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { officialStdio, type SpawnedPeer } from '../fixtures/stdio-peers.ts';
import { closeAllPeers, connectHttp } from './official-peers.ts';
import { recordTraces } from './request-traces.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.each(['legacy', 'modern'] as const)('our server traces the official client, %s era', (era) => {
  it('publishes its opening and each call, with the tool each names and how it ended', async () => {
    const server: McpServer = buildFixtureServer();
    cleanups.push(() => server.close());
    const { url } = await server.listenHttp({ port: 0 });
    const served = recordTraces<ServerRequestTrace>(SERVER_REQUEST_CHANNEL);
    cleanups.push(served.stop, closeAllPeers);
    const client = await connectHttp(era, url);
    await client.callTool({ name: 'echo', arguments: { text: 'traced' } });
    const ends = served.events.filter(({ phase }) => phase === 'asyncEnd').map(({ seen }) => [seen.method, seen.target, seen.era, seen.outcome]);
    expect(ends).toEqual([
      [era === 'legacy' ? 'initialize' : 'server/discover', undefined, era, 'result'],
      ['tools/call', 'echo', era, 'result'],
    ]);
  });
});

describe('our client traced against the official server', () => {
  it('publishes each request it sends with its result', async () => {
    const peer: SpawnedPeer = officialStdio();
    const client: McpClient = createClient({ transport: peer.factory, era: 'modern', reconnect: false });
    cleanups.push(() => client.close());
    await client.connect();
    const sent = recordTraces<ClientRequestTrace>(CLIENT_REQUEST_CHANNEL);
    cleanups.push(sent.stop);
    await client.callTool('echo', { text: 'traced' });
    expect(sent.events.map(({ phase, seen }) => [phase, seen.method, seen.era])).toEqual([
      ['start', 'tools/call', 'modern'],
      ['asyncEnd', 'tools/call', 'modern'],
    ]);
    expect(sent.events[1]!.seen.result).toMatchObject({ content: [{ type: 'text', text: 'traced' }] });
  });
});
