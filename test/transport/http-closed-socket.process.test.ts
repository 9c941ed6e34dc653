/**
 * A POST whose socket the server closes before answering (as a server closing
 * an idle keep-alive socket does, racing the client's next POST on it): a
 * response or a notification goes again, once, on a fresh connection; a
 * request does not, since the server may have received it. A loopback server
 * destroys the socket of the first POST of each message on cue.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import type { JsonRpcMessage } from '../../src/protocol/jsonrpc.ts';
import { httpTransport } from '../../src/transport/http.ts';
import { RecordingEvents } from './recording-events.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Destroys the socket of the first POST carrying each body; answers 202 to the ones after. Records every body. */
async function socketDroppingServer(): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const seenBefore = bodies.includes(body);
      bodies.push(body);
      if (seenBefore) res.writeHead(202).end();
      else req.socket.destroy();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, bodies };
}

async function openTransport(url: string) {
  const transport = httpTransport({ url })();
  const events = new RecordingEvents();
  await transport.start(events);
  transport.setProtocol({ era: 'modern', version: '2026-07-28' });
  return { transport, events };
}

it('sends a response again on a fresh connection when the server closed the socket under the first POST', async () => {
  const { url, bodies } = await socketDroppingServer();
  const { transport, events } = await openTransport(url);
  const reply: JsonRpcMessage = { jsonrpc: '2.0', id: 'srv-1', result: { action: 'accept' } };
  await transport.send(reply);
  expect(bodies).toEqual([JSON.stringify(reply), JSON.stringify(reply)]);
  expect(events.closures).toEqual([]);
  await transport.close();
});

it('does not send a request twice: the POST fails and the transport with it', async () => {
  const { url, bodies } = await socketDroppingServer();
  const { transport, events } = await openTransport(url);
  await expect(transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } })).rejects.toThrow(/fetch failed/);
  expect(bodies).toHaveLength(1);
  expect(events.closures).toMatchObject([{ type: 'failed' }]);
  await transport.close();
});
