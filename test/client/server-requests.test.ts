/**
 * Handlers for server requests and the input-required retry loop, against a
 * scripted peer joined in memory (frames still cross as lines and are
 * classified as over stdio), for what the official server cannot be made to
 * do on cue: ask for input forever, ask for input no handler answers, send a
 * malformed input-required result, ask a legacy client with no handler.
 * The real-peer tests are test/interop/server-requests.process.test.ts.
 */
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { InputHandlerMissingError, InputRoundsExceededError, MalformedInputRequiredError } from '../../src/client/input-required.ts';
import { InvalidHandlerResultError, ServerRequestRefusedError, UnknownServerRequestMethodError, type ServerRequestContext } from '../../src/client/server-requests.ts';
import type { ServerRequestMethod } from '../../src/client/server-request-types.ts';
import { RequestAbortedError } from '../../src/protocol/errors.ts';
import { FrameError, MAX_FRAME_DEPTH, type JsonObject } from '../../src/protocol/jsonrpc.ts';
import { LATEST_LEGACY_VERSION, MetaKey, MODERN_VERSION } from '../../src/protocol/versions.ts';
import { inMemoryTransport } from '../../src/transport/in-memory.ts';
import { countedLinks } from '../fixtures/counted-links.ts';
import { closedAfterEach } from '../setup/closed-after-each.ts';

type Message = JsonObject & { id?: number | string; method?: string; params?: JsonObject; result?: JsonObject; error?: JsonObject };

/** A scripted peer: `answer` gets each request the client sends (negotiation aside) and returns the result to send, or undefined for none. */
function scriptedPeer(era: 'modern' | 'legacy', answer: (message: Message, peer: Peer) => JsonObject | undefined) {
  const responses: Message[] = [];
  /** The `nth` response for `id`, if it has arrived. */
  const nthResponse = (id: unknown, nth: number) => responses.filter((message) => message.id === id)[nth - 1];
  let waiters: { id: unknown; nth: number; resolve: (message: Message) => void }[] = [];
  const peer: Peer = {
    received: [],
    write: () => {},
    response: (id, nth = 1) =>
      new Promise((resolve) => {
        const seen = nthResponse(id, nth);
        if (seen) resolve(seen);
        else waiters.push({ id, nth, resolve });
      }),
  };
  const transport = inMemoryTransport((end) => {
    peer.write = (message) => end.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    createInterface({ input: end.stdin }).on('line', (line) => {
      const message = JSON.parse(line) as Message;
      if (message.method === undefined) {
        responses.push(message);
        waiters = waiters.filter((waiter) => {
          const seen = nthResponse(waiter.id, waiter.nth);
          if (seen) waiter.resolve(seen);
          return !seen;
        });
        return;
      }
      peer.received.push(message);
      if (message.id === undefined) return;
      if (message.method === 'server/discover') {
        return era === 'modern'
          ? peer.write({ id: message.id, result: { resultType: 'complete', supportedVersions: [MODERN_VERSION], capabilities: { tools: {} }, serverInfo: { name: 'scripted', version: '1' } } })
          : peer.write({ id: message.id, error: { code: -32601, message: 'Method not found' } });
      }
      if (message.method === 'initialize') {
        return peer.write({ id: message.id, result: { protocolVersion: LATEST_LEGACY_VERSION, capabilities: { tools: {} }, serverInfo: { name: 'scripted', version: '1' } } });
      }
      const result = answer(message, peer);
      if (result !== undefined) peer.write({ id: message.id, result });
    });
  });
  return { peer, transport };
}

interface Peer {
  received: Message[];
  write(message: JsonObject): void;
  /** Resolves with the client's response to the peer's request `id` (its `nth` response to that id, the first by default). */
  response(id: unknown, nth?: number): Promise<Message>;
}

const { clients } = closedAfterEach({ clients: [] as McpClient[] });

function connected(
  era: 'modern' | 'legacy',
  transport: ReturnType<typeof scriptedPeer>['transport'],
  options: { maxInputRounds?: number; maxServerRequestsInFlight?: number } = {},
) {
  const client = createClient({ transport, era, reconnect: false, ...options });
  clients.push(client);
  return client;
}

const ELICIT = { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } };
const calls = (peer: Peer) => peer.received.filter((message) => message.method === 'tools/call');
const complete = (text: string) => ({ resultType: 'complete', content: [{ type: 'text', text }] });

describe('input-required retries (modern era)', () => {
  it('answers each input request with its handler and retries under a new id with inputResponses and the requestState echoed verbatim', async () => {
    const { peer, transport } = scriptedPeer('modern', (message) => {
      const params = message.params!;
      if (params.inputResponses === undefined) {
        return { resultType: 'input_required', inputRequests: { who: ELICIT, where: { method: 'roots/list' } }, requestState: 'opaque-1' };
      }
      return complete(JSON.stringify(params.inputResponses));
    });
    const client = connected('modern', transport);
    const seen: Array<{ params: unknown; context: ServerRequestContext<ServerRequestMethod> }> = [];
    client.onRequest('elicitation/create', (params, context) => {
      seen.push({ params, context });
      return { action: 'accept', content: { name: 'Ada' } };
    });
    client.onRequest('roots/list', () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
    await client.connect();

    const result = await client.callTool('ask', { a: 1 });

    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ who: { action: 'accept', content: { name: 'Ada' } }, where: { roots: [{ uri: 'file:///work', name: 'work' }] } }) }]);
    const [first, retry] = calls(peer);
    expect(retry!.id).not.toBe(first!.id);
    expect(retry!.params).toMatchObject({ name: 'ask', arguments: { a: 1 }, requestState: 'opaque-1' });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.params).toEqual(ELICIT.params);
    expect(seen[0]!.context.era).toBe('modern');
    expect(seen[0]!.context.signal.aborted).toBe(false);
    // Both handlers' capabilities ride in every request's envelope.
    const capabilities = (first!.params!._meta as JsonObject)[MetaKey.clientCapabilities];
    expect(capabilities).toMatchObject({ elicitation: { form: {} }, roots: {} });
  });

  it('omits requestState from the retry when the server sent none, and treats a result with no resultType as complete', async () => {
    const { peer, transport } = scriptedPeer('modern', (message) =>
      message.params!.inputResponses === undefined ? { resultType: 'input_required', inputRequests: { confirm: ELICIT } } : { messages: [] },
    );
    const client = connected('modern', transport);
    client.onRequest('elicitation/create', () => ({ action: 'decline' }));
    await client.connect();
    await expect(client.getPrompt('p')).resolves.toMatchObject({ resultType: 'complete' });
    const retry = peer.received.filter((message) => message.method === 'prompts/get')[1]!;
    expect(retry.params).not.toHaveProperty('requestState');
    expect(retry.params!.inputResponses).toEqual({ confirm: { action: 'decline' } });
  });

  it('gives up with InputRoundsExceededError once the server has asked maxInputRounds times after the first', async () => {
    const { peer, transport } = scriptedPeer('modern', () => ({ resultType: 'input_required', inputRequests: { again: ELICIT }, requestState: 'loop' }));
    const client = connected('modern', transport, { maxInputRounds: 2 });
    client.onRequest('elicitation/create', () => ({ action: 'accept', content: {} }));
    await client.connect();
    const error = await client.readResource('test://r').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputRoundsExceededError);
    expect(error).toMatchObject({ maxRounds: 2, callMethod: 'resources/read', lastResult: { requestState: 'loop' } });
    expect(peer.received.filter((message) => message.method === 'resources/read')).toHaveLength(3);
  });

  it('ends the call with InputHandlerMissingError naming the request when no handler answers it, and sends no retry', async () => {
    const { peer, transport } = scriptedPeer('modern', () => ({ resultType: 'input_required', inputRequests: { sample: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } } } }));
    const client = connected('modern', transport);
    await client.connect();
    const error = await client.callTool('ask').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputHandlerMissingError);
    expect(error).toMatchObject({ key: 'sample', requestMethod: 'sampling/createMessage', callMethod: 'tools/call' });
    expect(calls(peer)).toHaveLength(1);
    // Without a handler no capability was advertised.
    expect((calls(peer)[0]!.params!._meta as JsonObject)[MetaKey.clientCapabilities]).toEqual({});
  });

  it('fails the call with InvalidHandlerResultError when a handler returns what the schema refuses', async () => {
    const { peer, transport } = scriptedPeer('modern', () => ({ resultType: 'input_required', inputRequests: { roots: { method: 'roots/list' } } }));
    const client = connected('modern', transport);
    client.onRequest('roots/list', () => ({ roots: [{ uri: 'https://not-a-file' }] }));
    await client.connect();
    const error = await client.callTool('ask').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidHandlerResultError);
    expect((error as InvalidHandlerResultError).problems.join()).toMatch(/roots\/0\/uri/);
    expect(calls(peer)).toHaveLength(1);
  });

  it('refuses a malformed input-required result with MalformedInputRequiredError', async () => {
    const { transport } = scriptedPeer('modern', () => ({ resultType: 'input_required' }));
    const client = connected('modern', transport);
    await client.connect();
    await expect(client.callTool('ask')).rejects.toBeInstanceOf(MalformedInputRequiredError);
  });

  it("aborts the handlers and the call when the call's signal aborts", async () => {
    const { peer, transport } = scriptedPeer('modern', () => ({ resultType: 'input_required', inputRequests: { confirm: ELICIT } }));
    const client = connected('modern', transport);
    let handlerSignal: AbortSignal | undefined;
    let reached: () => void = () => {};
    const asked = new Promise<void>((resolve) => (reached = resolve));
    client.onRequest('elicitation/create', (_params, { signal }) => {
      handlerSignal = signal;
      reached();
      return new Promise(() => {});
    });
    await client.connect();
    const controller = new AbortController();
    const call = client.callTool('ask', {}, { signal: controller.signal });
    await asked;
    controller.abort('user left');
    await expect(call).rejects.toBeInstanceOf(RequestAbortedError);
    expect(handlerSignal?.aborted).toBe(true);
    expect(calls(peer)).toHaveLength(1);
  });
});

describe('advertised capabilities', () => {
  it('legacy: initialize carries the capabilities of the handlers registered before connect, the capabilities option winning per key', async () => {
    const { peer, transport } = scriptedPeer('legacy', () => ({}));
    const client = createClient({ transport, era: 'legacy', reconnect: false, capabilities: { sampling: { tools: {} }, experimental: { x: {} } } });
    clients.push(client);
    client.onRequest('sampling/createMessage', () => ({ role: 'assistant', content: { type: 'text', text: '' }, model: 'm' }));
    const removeRoots = client.onRequest('roots/list', () => ({ roots: [] }));
    await client.connect();
    const initialize = peer.received.find((message) => message.method === 'initialize')!;
    expect(initialize.params!.capabilities).toEqual({ sampling: { tools: {} }, roots: { listChanged: true }, experimental: { x: {} } });
    // Removed: the server's request gets -32601 at once.
    removeRoots();
    peer.write({ id: 7, method: 'roots/list' });
    expect((await peer.response(7)).error).toMatchObject({ code: -32601 });
  });

  it('modern: a handler registered after connect answers at once and is advertised from the next negotiation on', async () => {
    const { peer, transport: link } = scriptedPeer('modern', (message) =>
      message.params!.inputResponses === undefined ? { resultType: 'input_required', inputRequests: { roots: { method: 'roots/list' } } } : complete('ok'),
    );
    const { factory, links } = countedLinks(link);
    const client = createClient({
      transport: factory,
      era: 'modern',
      reconnect: { baseDelayMs: 1, maxDelayMs: 1 },
    });
    clients.push(client);
    await client.connect();
    client.onRequest('roots/list', () => ({ roots: [] }));
    await expect(client.callTool('ask')).resolves.toMatchObject({ content: [{ text: 'ok' }] });
    const envelope = (message: Message) => (message.params!._meta as JsonObject)[MetaKey.clientCapabilities];
    expect(envelope(calls(peer)[0]!)).toEqual({});

    const readyAgain = new Promise<void>((resolve) => client.on('connection.ready', () => resolve()));
    links[0]!.cut();
    await readyAgain;
    await client.callTool('ask');
    expect(envelope(calls(peer).at(-1)!)).toEqual({ roots: { listChanged: true } });
  });
});

describe('server requests (legacy era)', () => {
  it('answers -32601 when no handler is registered, and refuses to register an unknown method', async () => {
    const { peer, transport } = scriptedPeer('legacy', () => ({}));
    const client = connected('legacy', transport);
    await client.connect();
    peer.write({ id: 'srv-1', method: 'sampling/createMessage', params: { messages: [], maxTokens: 3 } });
    expect((await peer.response('srv-1')).error).toMatchObject({ code: -32601 });
    expect(() => client.onRequest('tools/call' as 'roots/list', () => ({ roots: [] }))).toThrow(UnknownServerRequestMethodError);
  });

  /** A `roots/list` handler whose answers wait until the test releases them; call n answers with `file:///root-n`. */
  function heldRoots(client: McpClient) {
    const held: (() => void)[] = [];
    let calls = 0;
    let onCall = () => {};
    client.onRequest('roots/list', async () => {
      const call = ++calls;
      onCall();
      await new Promise<void>((resolve) => held.push(resolve));
      return { roots: [{ uri: `file:///root-${call}` }] };
    });
    /** Resolves once the handler has been called `count` times. */
    const called = (count: number) =>
      new Promise<void>((resolve) => {
        onCall = () => calls >= count && resolve();
        onCall();
      });
    return { held, calls: () => calls, called };
  }

  /** A connected legacy client with a held `roots/list` handler, against a scripted peer; `errors` collects its onError reports. */
  async function legacyAskingRoots(options: { maxServerRequestsInFlight?: number } = {}) {
    const { peer, transport } = scriptedPeer('legacy', () => ({}));
    const client = connected('legacy', transport, options);
    const errors: Error[] = [];
    client.onError((error) => errors.push(error));
    const roots = heldRoots(client);
    await client.connect();
    return { peer, errors, roots };
  }

  it('refuses a request whose id is still being answered with -32600, runs no handler for it, and still answers the first', async () => {
    const { peer, errors, roots } = await legacyAskingRoots();
    peer.write({ id: 'srv-1', method: 'roots/list' });
    peer.write({ id: 'srv-1', method: 'roots/list' });
    expect((await peer.response('srv-1')).error).toMatchObject({ code: -32600 });
    expect(roots.calls()).toBe(1);
    expect(errors).toEqual([expect.any(ServerRequestRefusedError)]);
    expect(errors[0]).toMatchObject({ code: 'server_request_refused', reason: 'duplicate_id', method: 'roots/list', requestId: 'srv-1' });
    roots.held.shift()!();
    expect((await peer.response('srv-1', 2)).result).toEqual({ roots: [{ uri: 'file:///root-1' }] });
    expect(roots.calls()).toBe(1);
  });

  it('refuses a request it cannot read (nested too deep, params not an object) with -32600 under its id, runs no handler, and reports the FrameError', async () => {
    const { peer, errors, roots } = await legacyAskingRoots();
    const deep = JSON.parse('['.repeat(MAX_FRAME_DEPTH) + ']'.repeat(MAX_FRAME_DEPTH)) as unknown[];
    peer.write({ id: 'srv-deep', method: 'roots/list', params: { deep } });
    peer.write({ id: 7, method: 'roots/list', params: ['not', 'an', 'object'] });
    expect((await peer.response('srv-deep')).error).toMatchObject({ code: -32600, message: expect.stringContaining(`nests deeper than ${MAX_FRAME_DEPTH} levels`) });
    expect((await peer.response(7)).error).toMatchObject({ code: -32600, message: expect.stringContaining('params must be an object') });
    expect(roots.calls()).toBe(0);
    expect(errors).toEqual([expect.any(FrameError), expect.any(FrameError)]);
    expect(errors.map((error) => (error as FrameError).problem)).toEqual(['too_deep', 'wrong_shape']);
    // The connection goes on: the next request is answered by its handler.
    peer.write({ id: 'srv-2', method: 'roots/list' });
    await roots.called(1);
    roots.held.shift()!();
    expect((await peer.response('srv-2')).result).toEqual({ roots: [{ uri: 'file:///root-1' }] });
  });

  it('refuses past maxServerRequestsInFlight with -32000 naming the limit, runs no handler for it, and answers again once one is done', async () => {
    const { peer, errors, roots } = await legacyAskingRoots({ maxServerRequestsInFlight: 2 });
    for (const id of ['srv-1', 'srv-2', 'srv-3']) peer.write({ id, method: 'roots/list' });
    expect((await peer.response('srv-3')).error).toMatchObject({ code: -32000, data: { limit: 'maxServerRequestsInFlight', max: 2 } });
    expect(roots.calls()).toBe(2);
    expect(errors).toEqual([expect.objectContaining({ code: 'server_request_refused', reason: 'too_many_in_flight', requestId: 'srv-3' })]);
    roots.held.shift()!();
    expect((await peer.response('srv-1')).result).toEqual({ roots: [{ uri: 'file:///root-1' }] });
    peer.write({ id: 'srv-4', method: 'roots/list' });
    await roots.called(3);
    for (const release of roots.held.splice(0)) release();
    expect((await peer.response('srv-4')).result).toEqual({ roots: [{ uri: 'file:///root-3' }] });
    expect((await peer.response('srv-2')).result).toEqual({ roots: [{ uri: 'file:///root-2' }] });
  });
});
