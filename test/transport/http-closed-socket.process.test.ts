/**
 * A POST whose socket the server closes before answering (as a server closing
 * an idle keep-alive socket does, racing the client's next POST on it): any
 * message but a tools/call goes again, once, on a fresh connection, since the
 * server answered nothing; a resend reset too fails the transport. A
 * tools/call (a tool may have acted on it) is not resent: when the server
 * answers an OPTIONS, that call alone fails with OutcomeUnknownError and the
 * transport stays open; when it does not, the transport fails. A loopback
 * server destroys sockets on cue; for the client, a loopback proxy does so in
 * front of the real servers.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { OutcomeUnknownError } from '../../src/protocol/errors.ts';
import type { JsonRpcMessage } from '../../src/protocol/jsonrpc.ts';
import { httpTransport } from '../../src/transport/http.ts';
import { recordEvents } from '../fixtures/client-events.ts';
import { unassignedPort } from '../fixtures/free-port.ts';
import { startHttpFixture, type HttpFixture, type HttpFixtureKind } from '../fixtures/http-fixture-process.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';
import { RecordingEvents, request, resultOf } from './recording-events.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

/** What a loopback server does with one POST: destroy its socket, keep it unanswered until `release()`, or answer it. */
type Verdict = 'reset' | 'hold' | 'answer';

interface PostedMessage {
  id?: unknown;
  method?: unknown;
  params?: { name?: unknown; arguments?: { text?: unknown } };
}

/** Reads a request's whole body. */
const bodyOf = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => resolve(body));
  });

/** A loopback server on 127.0.0.1 running `handle`; its URL. */
async function listen(handle: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handle);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

/** POSTs that `verdict` holds, kept until `release()`; `held` resolves once the first arrived. */
function holding() {
  let arrived!: () => void;
  const held = new Promise<void>((resolve) => (arrived = resolve));
  const waiting: (() => void)[] = [];
  return {
    held,
    hold(go: () => void) {
      waiting.push(go);
      arrived();
    },
    release: () => waiting.splice(0).forEach((go) => go()),
  };
}

/**
 * By default destroys the socket of the first `resets` requests carrying each body (an OPTIONS's is empty), after
 * reading the body; `verdict` decides instead when given (`seen`: how many earlier requests carried the same body).
 * Answers the others (a POSTed request with a JSON result echoing its method, any other POST 202, an OPTIONS 405).
 * Records every POST's body.
 */
async function socketDroppingServer(resets = 1, verdict?: (message: PostedMessage, seen: number) => Verdict) {
  const bodies: string[] = [];
  const probes: string[] = [];
  const holds = holding();
  const url = await listen(async (req, res) => {
    const body = await bodyOf(req);
    const seen = [...bodies, ...probes].filter((earlier) => earlier === body).length;
    (req.method === 'POST' ? bodies : probes).push(body);
    const message = (req.method === 'POST' ? JSON.parse(body) : {}) as PostedMessage;
    const answer = () => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      if (message.id === undefined || message.method === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { method: message.method } }));
    };
    const decided = verdict ? verdict(message, seen) : seen < resets ? 'reset' : 'answer';
    if (decided === 'reset') req.socket.destroy();
    else if (decided === 'hold') holds.hold(answer);
    else answer();
  });
  return { url, bodies, probes, held: holds.held, release: holds.release };
}

async function openTransport(url: string) {
  const transport = httpTransport({ url })();
  const events = new RecordingEvents();
  await transport.start(events);
  transport.setProtocol({ era: 'modern', version: '2026-07-28' });
  return { transport, events };
}

/** What a promise rejected with (a test failure if it resolved). */
const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => expect.unreachable('it resolved'),
    (error: unknown) => error,
  );

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

it('does not send a tools/call twice (a tool may have acted on it): that call alone fails as outcome unknown, and the transport serves on', async () => {
  const server = await socketDroppingServer(1, (message, seen) =>
    message.method === 'resources/read' ? 'hold' : message.params?.name === 'stale' && seen === 0 ? 'reset' : 'answer',
  );
  const { transport, events } = await openTransport(server.url);
  const pending = transport.send(request(1, 'resources/read', { uri: 'file:///x' }));
  await server.held;
  const call = request(2, 'tools/call', { name: 'stale' });
  const error = await rejection(transport.send(call));
  expect(error).toBeInstanceOf(OutcomeUnknownError);
  expect(error).toMatchObject({ code: 'outcome_unknown', method: 'tools/call', requestId: 2, cause: { cause: { code: 'UND_ERR_SOCKET' } } });
  expect(server.bodies.filter((body) => body === JSON.stringify(call))).toHaveLength(1);
  expect(server.probes).toHaveLength(1);
  server.release();
  await pending;
  expect(resultOf(await events.response(1))).toEqual({ method: 'resources/read' });
  await transport.send(request(3, 'tools/call', { name: 'fresh' }));
  expect(resultOf(await events.response(3))).toEqual({ method: 'tools/call' });
  expect(events.closures).toEqual([]);
  await transport.close();
});

it('fails each of two tools/calls reset together as outcome unknown, resending the OPTIONS whose socket was closed too', async () => {
  const { url, probes } = await socketDroppingServer();
  const { transport, events } = await openTransport(url);
  const errors = await Promise.all([1, 2].map((id) => rejection(transport.send(request(id, 'tools/call', { name: 'x' })))));
  expect(errors.map((error) => error instanceof OutcomeUnknownError && error.requestId)).toEqual([1, 2]);
  expect(probes).toHaveLength(3);
  expect(events.closures).toEqual([]);
  await transport.close();
});

it('fails the transport when a tools/call POST is reset and the server resets the OPTIONS asking for it (and its resend) too', async () => {
  const { url, bodies, probes } = await socketDroppingServer(Infinity);
  const { transport, events } = await openTransport(url);
  const call = request(1, 'tools/call', { name: 'x' });
  const error = await rejection(transport.send(call));
  expect(error).not.toBeInstanceOf(OutcomeUnknownError);
  expect(error).toMatchObject({ cause: { code: 'UND_ERR_SOCKET' } });
  expect(bodies).toEqual([JSON.stringify(call)]);
  expect(probes).toHaveLength(2);
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

it('takes a redirect answering the OPTIONS as an answer: the tools/call alone fails as outcome unknown', async () => {
  const url = await listen(async (req, res) => {
    await bodyOf(req);
    if (req.method === 'POST') return void req.socket.destroy();
    res.writeHead(301, { location: 'http://127.0.0.1:1/elsewhere' }).end();
  });
  const { transport, events } = await openTransport(url);
  const error = await rejection(transport.send(request(1, 'tools/call', { name: 'x' })));
  expect(error).toBeInstanceOf(OutcomeUnknownError);
  expect(events.closures).toEqual([]);
  await transport.close();
});

it('fails the transport when the OPTIONS asking for a reset tools/call gets no answer within its bound', { timeout: 30_000 }, async () => {
  let probed!: () => void;
  const probeArrived = new Promise<void>((resolve) => (probed = resolve));
  const url = await listen(async (req) => {
    await bodyOf(req);
    if (req.method === 'POST') return void req.socket.destroy();
    probed(); // and never answered
  });
  const { transport, events } = await openTransport(url);
  const error = rejection(transport.send(request(1, 'tools/call', { name: 'x' })));
  await probeArrived;
  expect(await error).not.toBeInstanceOf(OutcomeUnknownError);
  expect(events.closures).toMatchObject([{ type: 'failed' }]);
  await transport.close();
});

it('fails the transport when a tools/call finds the connection refused: no server is there', async () => {
  // Nothing listens there, and no other test's server can be given that port meanwhile.
  const { transport, events } = await openTransport(`http://127.0.0.1:${await unassignedPort()}/mcp`);
  const error = await rejection(transport.send(request(1, 'tools/call', { name: 'x' })));
  expect(error).not.toBeInstanceOf(OutcomeUnknownError);
  const closed = await events.whenClosed();
  expect(closed.type === 'failed' && (closed.cause as Error & { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
  await transport.close();
});

/**
 * A loopback proxy in front of the server on `targetPort`: it reads each request and, by `verdict` on a POST's
 * message, destroys its socket, keeps it until `release()`, or forwards it (as it forwards GETs and DELETEs).
 */
async function resettingProxy(targetPort: number, verdict: (message: PostedMessage) => Verdict) {
  const holds = holding();
  const probes: IncomingHttpHeaders[] = [];
  const url = await listen(async (req, res) => {
    const body = await bodyOf(req);
    if (req.method === 'OPTIONS') probes.push(req.headers);
    const forward = () => {
      const upstream = httpRequest({ host: '127.0.0.1', port: targetPort, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      res.on('close', () => upstream.destroy());
      upstream.end(body);
    };
    const decided = req.method === 'POST' ? verdict(JSON.parse(body) as PostedMessage) : 'answer';
    if (decided === 'reset') req.socket.destroy();
    else if (decided === 'hold') holds.hold(forward);
    else forward();
  });
  return { url, probes, held: holds.held, release: holds.release };
}

const { clients, fixtures } = closedAfterEach({ clients: [] as McpClient[], fixtures: [] as HttpFixture[] });

describe.each<{ kind: HttpFixtureKind; era: 'modern' | 'legacy' }>([
  { kind: 'official', era: 'modern' },
  { kind: 'legacy', era: 'legacy' },
])('the client over $era HTTP ($kind server)', ({ kind, era }) => {
  it('rejects a callTool whose POST was reset with OutcomeUnknownError; other calls are answered and the connection stays up', async () => {
    const fixture = await startHttpFixture(kind);
    fixtures.push(fixture);
    const text = (message: PostedMessage) => (message.method === 'tools/call' ? message.params?.arguments?.text : undefined);
    const proxy = await resettingProxy(fixture.port, (message) => (text(message) === 'reset' ? 'reset' : text(message) === 'held' ? 'hold' : 'answer'));
    const client = createClient({ transport: httpTransport({ url: proxy.url }), era });
    clients.push(client);
    await client.connect();
    const events = recordEvents(client);
    const held = client.callTool('echo', { text: 'held' });
    await proxy.held;
    const error = await rejection(client.callTool('echo', { text: 'reset' }));
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error).toMatchObject({ method: 'tools/call', requestId: expect.any(Number) });
    proxy.release();
    expect((await held).content).toEqual([{ type: 'text', text: 'held' }]);
    expect((await client.callTool('echo', { text: 'after' })).content).toEqual([{ type: 'text', text: 'after' }]);
    expect(events).toEqual([]);
    // The probe asks the server, not the session: no session id, so no handler takes it for the session's.
    expect(proxy.probes.length).toBeGreaterThan(0);
    expect(proxy.probes.map((headers) => headers['mcp-session-id'])).toEqual(proxy.probes.map(() => undefined));
  });
});
