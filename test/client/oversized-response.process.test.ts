/**
 * A response larger than `maxFrameBytes` fails its own request at once with
 * the FrameError (`oversized`), instead of leaving it to time out: the
 * dropped line's first and last bytes name its id (the official servers
 * write the id last, ours first). Over HTTP the request's own stream ends
 * unanswered, with the FrameError as the cause. The connection goes on.
 * Real servers: the official 2.x stdio and HTTP servers, and ours over stdio.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { FrameError } from '../../src/protocol/jsonrpc.ts';
import { StreamEndedError } from '../../src/protocol/errors.ts';
import { httpTransport } from '../../src/transport/http.ts';
import { readyStdioTransport } from '../fixtures/ready-stdio-transport.ts';
import { startHttpFixture, type HttpFixture } from '../fixtures/http-fixture-process.ts';
import { fixtureArgs } from '../setup/fixture-bundle.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

const LIMIT = 4096;
const BIG = 'b'.repeat(3 * LIMIT);

const { clients, fixtures } = closedAfterEach({ clients: [] as McpClient[], fixtures: [] as HttpFixture[] });

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

/** A client of the stdio fixture `name` that refuses frames above LIMIT, the request timeout long enough to tell. */
function stdioClient(name: string, era: 'legacy' | 'modern'): McpClient {
  const transport = readyStdioTransport({ command: process.execPath, args: fixtureArgs(fixture(name)), maxFrameBytes: LIMIT });
  const client = createClient({ transport, era, reconnect: false, requestTimeoutMs: 60_000 });
  clients.push(client);
  return client;
}

describe('a response larger than maxFrameBytes', () => {
  for (const [name, server] of [
    ['official-stdio-server.ts', 'the official 2.x server (id last)'],
    ['own-server-stdio.ts', 'our server (id first)'],
  ] as const) {
    for (const era of ['legacy', 'modern'] as const) {
      it(`stdio, ${server}, ${era}: fails its request at once with the oversized FrameError, and the connection goes on`, async () => {
        const client = stdioClient(name, era);
        const reports: Error[] = [];
        client.onError((error) => reports.push(error));
        await client.connect();
        const failure = await client.callTool('echo', { text: BIG }).catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(FrameError);
        expect(failure).toMatchObject({ code: 'frame_error', problem: 'oversized', responseId: expect.anything() });
        expect(reports).toEqual([failure]);
        expect(await client.callTool('echo', { text: 'small' })).toMatchObject({ content: [{ type: 'text', text: expect.stringContaining('small') }] });
      });
    }
  }

  it('HTTP, the official 2.x server: ends its request with StreamEndedError caused by the oversized FrameError', async () => {
    const server = await startHttpFixture('official');
    fixtures.push(server);
    const client = createClient({ transport: httpTransport({ url: server.url, maxFrameBytes: LIMIT }), reconnect: false, requestTimeoutMs: 60_000 });
    clients.push(client);
    await client.connect();
    const failure = await client.callTool('echo', { text: BIG }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StreamEndedError);
    expect((failure as StreamEndedError).cause).toMatchObject({ problem: 'oversized' });
    expect(await client.callTool('echo', { text: 'small' })).toMatchObject({ content: [{ type: 'text', text: expect.stringContaining('small') }] });
  });
});
