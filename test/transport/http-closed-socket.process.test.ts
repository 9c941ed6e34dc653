/**
 * A POST whose socket the server closes before answering (as a server closing
 * an idle keep-alive socket does, racing the client's next POST on it): any
 * message but a tools/call (a tool may have acted on it) goes again, once, on
 * a fresh connection, since the server answered nothing; a resend reset too
 * fails the transport. A loopback
 * server destroys the socket of the first POSTs of each message on cue.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import type { JsonRpcMessage } from '../../src/protocol/jsonrpc.ts';
import { httpTransport } from '../../src/transport/http.ts';
import { RecordingEvents, request, resultOf } from './recording-events.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/**
 * Destroys the socket of the first `resets` POSTs carrying each body, after reading the body; answers the ones
 * after (a request with a JSON result echoing its method, anything else 202). Records every body.
 */
async function socketDroppingServer(resets = 1): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const seen = bodies.filter((earlier) => earlier === body).length;
      bodies.push(body);
      if (seen < resets) return void req.socket.destroy();
      const message = JSON.parse(body) as { id?: unknown; method?: unknown };
      if (message.id === undefined || message.method === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { method: message.method } }));
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

it('sends a request again on a fresh connection when the server closed the socket before answering, and reads its answer', async () => {
  const { url, bodies } = await socketDroppingServer();
  const { transport, events } = await openTransport(url);
  const call = request(1, 'resources/read', { uri: 'file:///x' });
  await transport.send(call);
  expect(resultOf(await events.response(1))).toEqual({ method: 'resources/read' });
  expect(bodies).toEqual([JSON.stringify(call), JSON.stringify(call)]);
  expect(events.closures).toEqual([]);
  await transport.close();
});

it('does not send a tools/call twice (a tool may have acted on it): the POST fails and the transport with it', async () => {
  const { url, bodies } = await socketDroppingServer();
  const { transport, events } = await openTransport(url);
  const call = request(1, 'tools/call', { name: 'x' });
  await expect(transport.send(call)).rejects.toThrow(/fetch failed/);
  expect(bodies).toEqual([JSON.stringify(call)]);
  expect(events.closures).toMatchObject([{ type: 'failed' }]);
  await transport.close();
});

it('sends a request at most twice: when the resend is reset too, the POST fails and the transport with it', async () => {
  const { url, bodies } = await socketDroppingServer(Infinity);
  const { transport, events } = await openTransport(url);
  const call = request(1, 'prompts/list');
  await expect(transport.send(call)).rejects.toThrow(/fetch failed/);
  expect(bodies).toEqual([JSON.stringify(call), JSON.stringify(call)]);
  expect(events.closures).toMatchObject([{ type: 'failed' }]);
  await transport.close();
});
