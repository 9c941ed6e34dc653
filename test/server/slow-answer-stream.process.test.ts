/**
 * A response that takes longer than `keepAliveMs` goes out as an SSE stream
 * with keep-alive comments, in both eras: many load balancers cut a response
 * that sent nothing, headers included, for 60 s, so a long tool call that
 * answered with plain JSON at the end was lost behind them. On the wire (raw
 * POSTs), and through the official clients (2.x in both eras, sdk 1.x) and ours in both eras, whose
 * calls get their results as before. Our server in this process, loopback
 * HTTP, keep-alives every 50 ms and a call of 400 ms.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { OwnClients } from '../fixtures/own-clients.ts';
import { CLIENT_KINDS, closeAllClients } from '../interop/official-clients.ts';
import { modernPost, RawLegacySession } from './raw-http-peer.ts';

const KEEP_ALIVE_MS = 50;
const CALL = { name: 'slow', arguments: { ms: 400 } };

let server: McpServer;
let url: string;
const ours = new OwnClients();
beforeEach(async () => {
  server = buildFixtureServer();
  url = (await server.listenHttp({ port: 0, keepAliveMs: KEEP_ALIVE_MS })).url;
});
afterEach(async () => {
  await ours.disconnectAll();
  await closeAllClients();
  await server.close();
});

describe('a slow answer becomes a stream with keep-alives', () => {
  it.each(['legacy', 'modern'] as const)('on the wire, %s era: text/event-stream, comments while it works, then its result', async (era) => {
    const call =
      era === 'modern'
        ? await modernPost(url, 7, 'tools/call', CALL)
        : await (await RawLegacySession.open(url)).request(7, 'tools/call', CALL);
    expect(call.response.status).toBe(200);
    expect(call.response.headers.get('content-type')).toBe('text/event-stream');
    const result = await call.next((message) => message.id === 7);
    expect(result).toMatchObject({ result: { content: [{ type: 'text', text: 'slept 400' }] } });
    await call.ended;
    expect(call.comments).toBeGreaterThan(0);
  });

  it('a quick answer stays plain JSON', async () => {
    const call = await modernPost(url, 8, 'tools/call', { name: 'slow', arguments: { ms: 0 } });
    expect(call.response.headers.get('content-type')).toBe('application/json');
    expect(await call.next((message) => message.id === 8)).toMatchObject({ result: { content: [{ text: 'slept 0' }] } });
  });

  it.each(CLIENT_KINDS.map((kind) => [kind.name, kind] as const))('%s gets its result', async (_name, kind) => {
    const client = await kind.connect({ transport: 'http', url });
    expect(await client.call('slow', { ms: 400 })).toBe('slept 400');
  });

  it.each(['legacy', 'modern'] as const)('our client gets its result, %s era', async (era) => {
    const client = await ours.connectHttp(url, { era });
    expect(client.era).toBe(era);
    expect(await client.callTool('slow', { ms: 400 })).toMatchObject({ content: [{ type: 'text', text: 'slept 400' }] });
  });
});
