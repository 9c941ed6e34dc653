/**
 * The -32022 retry (issue 19): a server that refuses the first
 * `server/discover` with -32022 and `supported` naming 2026-07-28 gets the
 * probe once more, and a second refusal is a NegotiationError. No real
 * server refuses on cue, so a scripted loopback HTTP peer does (as the
 * conformance suite's `request-metadata` scenario does).
 */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { NegotiationError } from '../../src/protocol/errors.ts';
import { listenOnLoopback } from '../fixtures/loopback-url.ts';
import { OwnClients } from '../fixtures/own-clients.ts';

const ours = new OwnClients();
const servers: Server[] = [];
afterEach(async () => {
  await ours.disconnectAll();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Refuses the first `refusals` requests with -32022; answers server/discover after that. Records each request's version header. */
async function refusingPeer(refusals: number) {
  const seen: { method: string; version: string | undefined }[] = [];
  const http = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const message = JSON.parse(body) as { id?: number; method: string };
      const version = req.headers['mcp-protocol-version'] as string | undefined;
      seen.push({ method: message.method, version });
      const answer = (status: number, payload: object) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id ?? null, ...payload }));
      if (seen.length <= refusals) {
        return answer(400, { error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'], requested: version } } });
      }
      if (message.method === 'server/discover') {
        return answer(200, { result: { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: {}, _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'scripted', version: '1' } } } });
      }
      return answer(200, { result: { resultType: 'complete' } });
    });
  });
  servers.push(http);
  return { url: await listenOnLoopback(http), seen };
}

describe('a server/discover refused with -32022 that lists 2026-07-28', () => {
  it('is probed once more in 2026-07-28, and the connection is modern', async () => {
    const { url, seen } = await refusingPeer(1);
    const client = await ours.connectHttp(url);
    expect(client.era).toBe('modern');
    expect(seen).toEqual([
      { method: 'server/discover', version: '2026-07-28' },
      { method: 'server/discover', version: '2026-07-28' },
    ]);
  });

  it('refused again, the negotiation fails instead of probing a third time', async () => {
    const { url, seen } = await refusingPeer(2);
    const error = await ours.connectHttp(url, { reconnect: false }).then(
      () => undefined,
      (cause: unknown) => cause,
    );
    expect(error).toBeInstanceOf(NegotiationError);
    expect((error as Error).message).toBe('the server lists 2026-07-28 yet refused it again');
    expect(seen.map((entry) => entry.method)).toEqual(['server/discover', 'server/discover']);
  });
});
