import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, httpTransport, type ClosedReason, type McpClient } from '../../src/index.ts';
import { createServer, type McpServer } from '../../src/server/index.ts';
import { closeAllPeers, connectHttp } from './official-peers.ts';

const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await closeAllPeers();
});

describe('await using on the server and its endpoints', () => {
  it('ends the HTTP endpoint, the legacy session and the modern stream at the end of the block', async () => {
    let disposed: McpServer | undefined;
    let url = '';
    let streamClosed: Promise<ClosedReason> | undefined;
    {
      await using server = createServer({ name: 'dispose', version: '1.0.0' });
      await using http = await server.listenHttp({ port: 0 });
      disposed = server;
      url = http.url;
      const official = await connectHttp('legacy', url);
      expect((await official.listTools()).tools).toEqual([]);
      expect(server.openSessionCount).toBe(1);
      const ours = createClient({ transport: httpTransport({ url }), era: 'modern', reconnect: false });
      clients.push(ours);
      await ours.connect();
      const stream = await ours.listen({ toolsListChanged: true }, () => undefined);
      await stream.acknowledged;
      expect(server.openStreamCount).toBe(1);
      streamClosed = stream.closed;
    }
    expect(await streamClosed).toEqual({ type: 'graceful' });
    expect(disposed.openStreamCount).toBe(0);
    expect(disposed.openSessionCount).toBe(0);
    await expect(fetch(url, { method: 'POST', body: '{}' })).rejects.toThrow();
  });

  it('closes a stdio connection at the end of its block', async () => {
    const server = createServer({ name: 'dispose', version: '1.0.0' });
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let closed: Promise<void> | undefined;
    let settled = false;
    {
      await using connection = server.serveStdio({ stdin, stdout });
      closed = connection.closed;
      void closed.then(() => (settled = true));
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`);
      const answer = await new Promise<string>((resolve) => stdout.once('data', (chunk: Buffer) => resolve(chunk.toString())));
      expect(JSON.parse(answer)).toMatchObject({ id: 1, result: {} });
      expect(settled).toBe(false);
    }
    await closed;
    expect(settled).toBe(true);
    await server.close();
  });
});
