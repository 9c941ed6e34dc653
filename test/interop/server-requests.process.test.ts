/**
 * Our client answering what real servers ask: the official server 2.4.0
 * (test/fixtures/asking-server.ts) over stdio in both eras and over modern
 * HTTP, and the official SDK 1.32.2's sessionful legacy HTTP server
 * (legacy-http-server.ts --ask elicitation). Legacy era: server requests on
 * the wire; modern era: input-required results retried with inputResponses.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { InvalidHandlerResultError, ServerRequestHandlerError, type ServerRequestContext } from '../../src/client/server-requests.ts';
import type { ElicitParams, ServerRequestMethod } from '../../src/client/server-request-types.ts';
import type { EraPreference } from '../../src/protocol/versions.ts';
import { httpTransport } from '../../src/transport/http.ts';
import type { TransportFactory } from '../../src/transport/transport.ts';
import { startHttpFixture, type HttpFixture } from '../fixtures/http-fixture-process.ts';
import { stdioPeer, type SpawnedPeer } from '../fixtures/stdio-peers.ts';

const clients: McpClient[] = [];
const peers: SpawnedPeer[] = [];
const fixtures: HttpFixture[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  for (const transport of peers.splice(0).flatMap((peer) => peer.transports)) {
    if (transport.pid !== undefined && transport.exitStatus === undefined) process.kill(transport.pid, 'SIGKILL');
  }
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.stop()));
});

function askingStdio(): TransportFactory {
  const peer = stdioPeer('asking-server.ts');
  peers.push(peer);
  return peer.factory;
}

async function overHttp(kind: 'asking' | 'legacy', args: string[] = []): Promise<TransportFactory> {
  const fixture = await startHttpFixture(kind, { args });
  fixtures.push(fixture);
  return httpTransport({ url: fixture.url });
}

const textOf = (result: Record<string, unknown>) => (result.content as Array<{ text: string }>)[0]!.text;

interface Asked {
  method: ServerRequestMethod;
  params: unknown;
  era: ServerRequestContext['era'];
}

/** A client whose handlers answer as a user named Ada would, recording what they were asked. */
function answeringClient(transport: TransportFactory, era: EraPreference) {
  const client = createClient({ transport, era, reconnect: false });
  clients.push(client);
  const asked: Asked[] = [];
  client.onRequest('elicitation/create', (params, { era: inEra }) => {
    asked.push({ method: 'elicitation/create', params, era: inEra });
    return { action: 'accept', content: { name: 'Ada' } };
  });
  client.onRequest('sampling/createMessage', (params, { era: inEra }) => {
    asked.push({ method: 'sampling/createMessage', params, era: inEra });
    return { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'test-model' };
  });
  client.onRequest('roots/list', (params, { era: inEra }) => {
    asked.push({ method: 'roots/list', params, era: inEra });
    return { roots: [{ uri: 'file:///work', name: 'work' }] };
  });
  return { client, asked };
}

/** Calls the three asking tools over stdio in `era`; each answer must come from the handler, asked in that era. */
async function askEveryKind(era: 'legacy' | 'modern', nameAnswer: string): Promise<Asked[]> {
  const { client, asked } = answeringClient(askingStdio(), era);
  await client.connect();
  expect(client.era).toBe(era);
  expect(textOf(await client.callTool('ask-name'))).toBe(nameAnswer);
  expect(textOf(await client.callTool('ask-sample'))).toBe('sampled: test-model hi');
  expect(textOf(await client.callTool('ask-roots'))).toBe('roots: file:///work');
  expect(asked.map(({ method, era: inEra }) => [method, inEra])).toEqual([
    ['elicitation/create', era],
    ['sampling/createMessage', era],
    ['roots/list', era],
  ]);
  return asked;
}

describe('legacy era: server requests answered by the handlers', () => {
  it('stdio (official server 2.4.0): elicitation, sampling and roots each answered with the handler result', async () => {
    const asked = await askEveryKind('legacy', 'name: Ada (accept)');
    expect((asked[0]!.params as ElicitParams).message).toBe('Your name?');
  });

  it('HTTP (SDK 1.32.2, sessionful): an elicitation sent on the call stream is answered', async () => {
    const { client, asked } = answeringClient(await overHttp('legacy', ['--ask', 'elicitation']), 'legacy');
    await client.connect();
    expect(textOf(await client.callTool('ask-name'))).toBe('name: Ada (accept)');
    expect(asked.map(({ method }) => method)).toEqual(['elicitation/create']);
  });

  it('a handler that throws or returns a malformed result: the server gets -32603 and the client reports a typed error', async () => {
    const client = createClient({ transport: askingStdio(), era: 'legacy', reconnect: false });
    clients.push(client);
    const reported: Error[] = [];
    client.onError((error) => reported.push(error));
    client.onRequest('elicitation/create', () => {
      throw new Error('no user at the keyboard');
    });
    // A root that is no file:// URI breaks the ListRootsResult schema.
    client.onRequest('roots/list', () => ({ roots: [{ uri: 'https://example.com/' }] }));
    await client.connect();
    const text = textOf(await client.callTool('ask-name'));
    expect(text).toMatch(/^refused: -32603 .*no user at the keyboard/);
    expect(reported.find((error) => error instanceof ServerRequestHandlerError)?.message).toMatch(/elicitation\/create handler failed: no user at the keyboard/);
    expect(textOf(await client.callTool('ask-roots'))).toMatch(/^refused: -32603 .*roots\/list handler returned a malformed result/);
    expect(reported.find((error) => error instanceof InvalidHandlerResultError)?.problems).toEqual([expect.stringMatching(/^\/roots\/0\/uri /)]);
  });

  it("notifications/cancelled from the server aborts the handler's signal", async () => {
    const client = createClient({ transport: askingStdio(), era: 'legacy', reconnect: false });
    clients.push(client);
    let started: () => void = () => {};
    const handlerStarted = new Promise<void>((resolve) => (started = resolve));
    let abortReason: unknown;
    const handlerAborted = new Promise<void>((resolve) => {
      client.onRequest('elicitation/create', (_params, { signal }) => {
        started();
        return new Promise((_, reject) => {
          signal.addEventListener('abort', () => {
            abortReason = signal.reason;
            resolve();
            reject(new Error('aborted'));
          });
        });
      });
    });
    await client.connect();
    const heldCall = client.callTool('ask-held');
    await handlerStarted;
    expect(textOf(await client.callTool('cancel-held'))).toBe('cancelled');
    await handlerAborted;
    expect(String(abortReason)).toMatch(/changed its mind/);
    expect(textOf(await heldCall)).toMatch(/^held: /);
  });
});

describe('modern era: input-required results answered and retried', () => {
  it('stdio (official server 2.4.0): elicitation with requestState echoed, sampling and roots', async () => {
    const asked = await askEveryKind('modern', 'name: Ada (state asked-for-name)');
    expect((asked[0]!.params as ElicitParams).message).toBe('Your name?');
  });

  it('HTTP (official server 2.4.0, createMcpHandler): an elicitation round trip', async () => {
    const { client, asked } = answeringClient(await overHttp('asking'), 'modern');
    await client.connect();
    expect(textOf(await client.callTool('ask-name'))).toBe('name: Ada (state asked-for-name)');
    expect(asked).toHaveLength(1);
  });
});
