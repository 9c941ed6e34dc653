/**
 * Handlers that ask the client for input (elicitation, sampling, roots), with
 * the official client 2.4.0 as the peer: the same handler code reaches a
 * modern client as input-required results (the client fulfils them and
 * retries) and a legacy client as requests over its session, on stdio (a
 * child process) and on loopback HTTP.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type HttpServerHandle, type McpServer } from '../../src/server/index.ts';
import { defineInputTools } from '../fixtures/conformance/input-tools.ts';
import { defineReturningTools } from '../fixtures/returning-tools.ts';
import { fixtureBundle } from '../setup/fixture-bundle.ts';

type Era = 'legacy' | 'modern';
type Capability = 'elicitation' | 'sampling' | 'roots';

const ASKING_FIXTURE = fileURLToPath(new URL('../fixtures/asking-server-stdio.ts', import.meta.url));
const open = new Set<Client>();

/** Requests our server sent to one client's handlers, in order. */
interface Asked {
  method: string;
  params: Record<string, unknown>;
}

function newClient(era: Era, capabilities: Capability[], options: { manual?: boolean } = {}): Peer {
  const asked: Asked[] = [];
  const declared = Object.fromEntries(capabilities.map((name) => [name, {}]));
  const client = new Client({ name: 'asking-test', version: '1.0.0' }, {
    capabilities: declared,
    ...(era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {}),
    ...(options.manual ? { inputRequired: { autoFulfill: false } } : {}),
  });
  if (capabilities.includes('elicitation')) {
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push({ method: 'elicitation/create', params: request.params as Record<string, unknown> });
      const properties = Object.keys((request.params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties ?? {});
      return { action: 'accept', content: Object.fromEntries(properties.map((name) => [name, name === 'ok' ? true : `${name}-answer`])) };
    });
  }
  if (capabilities.includes('sampling')) {
    client.setRequestHandler('sampling/createMessage', async (request) => {
      asked.push({ method: 'sampling/createMessage', params: request.params as Record<string, unknown> });
      return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' };
    });
  }
  if (capabilities.includes('roots')) {
    client.setRequestHandler('roots/list', async () => {
      asked.push({ method: 'roots/list', params: {} });
      return { roots: [{ uri: 'file:///work/project', name: 'project' }] };
    });
  }
  open.add(client);
  return { client, asked };
}

async function overStdio(era: Era, capabilities: Capability[]) {
  const peer = newClient(era, capabilities);
  await peer.client.connect(new StdioClientTransport({ command: process.execPath, args: [fixtureBundle(ASKING_FIXTURE)], stderr: 'inherit' }));
  return peer;
}

let server: McpServer;
let http: HttpServerHandle;
/** Calls of the HTTP server's return-style booking handler. */
const calls = { booking: 0 };

async function overHttp(era: Era, capabilities: Capability[], options: { manual?: boolean } = {}) {
  const peer = newClient(era, capabilities, options);
  await peer.client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  return peer;
}

const textOf = (result: unknown): string => (result as { content: { text: string }[] }).content[0]!.text;

type Peer = { client: Client; asked: Asked[] };

/** The two-step tool: each question asked once, in order, and both answers reach the result (whatever the era). */
async function expectTwoSteps({ client, asked }: Peer): Promise<void> {
  const result = await client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} });
  expect(textOf(result)).toBe('name-answer likes color-answer');
  expect(asked.map((ask) => ask.params.message)).toEqual(['Step 1: What is your name?', 'Step 2: What is your favorite color?']);
}

/** The tool asking elicitation, sampling and roots together: each asked once, every answer used (whatever the era). */
async function expectThreeKinds({ client, asked }: Peer): Promise<void> {
  const result = await client.callTool({ name: 'test_input_required_result_multiple_inputs', arguments: {} });
  expect(textOf(result)).toBe('Paris name-answer (1 roots)');
  expect(asked.map((ask) => ask.method).sort()).toEqual(['elicitation/create', 'roots/list', 'sampling/createMessage']);
}

/** The return-style booking: two returned requests, the guest's name carried in the handler's own state to the second. */
async function expectBooking({ client, asked }: Peer): Promise<void> {
  const result = await client.callTool({ name: 'book_returning', arguments: {} });
  expect(textOf(result)).toBe('name-answer eats dish-answer (round 2)');
  expect(asked.map((ask) => ask.params.message)).toEqual(['Who is the booking for?', 'What will name-answer eat?']);
}

/** A template reader in the return style: asked once for the author, then read. */
async function expectNote({ client, asked }: Peer): Promise<void> {
  const { contents } = await client.readResource({ uri: 'note://7' });
  expect(contents).toEqual([{ uri: 'note://7', mimeType: 'text/plain', text: 'note 7 by name-answer' }]);
  expect(asked.map((ask) => ask.params.message)).toEqual(['Who writes note 7?']);
}

beforeAll(async () => {
  server = createServer({ name: 'asking-http', version: '1.0.0' });
  defineInputTools(server);
  defineReturningTools(server, calls);
  http = await server.listenHttp({ host: '127.0.0.1', port: 0 });
});

afterEach(async () => {
  const clients = [...open];
  open.clear();
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
});

// The two legacy stdio tests of a client declaring elicitation alone share its connection (a stdio server is one per
// client): kept out of `open`, so afterEach leaves it up, and each test starts with an empty record of what was asked.
let sharedLegacy: Promise<Peer> | undefined;
async function sharedLegacyStdio(): Promise<Peer> {
  sharedLegacy ??= overStdio('legacy', ['elicitation']).then((peer) => (open.delete(peer.client), peer));
  const peer = await sharedLegacy;
  peer.asked.length = 0;
  return peer;
}

afterAll(async () => {
  const legacy = sharedLegacy;
  sharedLegacy = undefined;
  // A connect that failed left its client in `open`, closed by afterEach.
  await legacy?.then(({ client }) => client.close(), () => undefined);
  await server.close();
});

describe('modern era: input-required results, fulfilled by the official client', () => {
  it('answers an elicitation through an input-required round trip over HTTP', async () => {
    const { client, asked } = await overHttp('modern', ['elicitation']);
    const result = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
    expect(textOf(result)).toBe('Hello, name-answer!');
    expect(asked).toEqual([{ method: 'elicitation/create', params: expect.objectContaining({ message: 'What is your name?' }) }]);
  });

  it('carries earlier answers in requestState across rounds, asking each question once', async () => {
    await expectTwoSteps(await overHttp('modern', ['elicitation']));
  });

  it('asks for elicitation, sampling and roots in one round, over stdio', async () => {
    await expectThreeKinds(await overStdio('modern', ['elicitation', 'sampling', 'roots']));
  });

  it('asks from a prompt handler too', async () => {
    const { client } = await overHttp('modern', ['elicitation']);
    const result = await client.getPrompt({ name: 'test_input_required_result_prompt' });
    expect(result.messages[0]!.content).toEqual({ type: 'text', text: 'Context: context-answer' });
  });

  it('refuses a tampered requestState with -32602, and accepts the state as issued', async () => {
    const { client } = await overHttp('modern', ['elicitation'], { manual: true });
    const name = 'test_input_required_result_request_state';
    const first = (await client.callTool({ name, arguments: {} }, { allowInputRequired: true })) as Record<string, unknown>;
    expect(first.resultType).toBe('input_required');
    const state = first.requestState as string;
    const inputResponses = { confirm: { action: 'accept', content: { ok: true } } };
    const flipped = `${state.slice(0, 20)}${state[20] === 'A' ? 'B' : 'A'}${state.slice(21)}`;
    // callTool's params type has no inputResponses: the manual retry goes through request().
    const retry = (requestState: string) =>
      client.request({ method: 'tools/call', params: { name, arguments: {}, inputResponses, requestState } }, { allowInputRequired: true });
    await expect(retry(flipped)).rejects.toMatchObject({ code: -32602 });
    const retried = await retry(state);
    expect(textOf(retried)).toBe('state-ok: confirmed=true');
  });

  it('refuses to ask a client that did not declare elicitation (-32021), asking nothing', async () => {
    const { client, asked } = await overHttp('modern', ['sampling']);
    await expect(client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} })).rejects.toMatchObject({ code: -32021 });
    expect(asked).toEqual([]);
  });
});

describe('modern era: a handler that returns its requests for input, and keeps its own state', () => {
  it('calls the handler once per round, with the answers and the state it returned, over HTTP', async () => {
    const before = calls.booking;
    await expectBooking(await overHttp('modern', ['elicitation']));
    expect(calls.booking - before).toBe(3);
  });

  it('returns the requests as inputRequests, seals the state unreadable, and refuses it tampered', async () => {
    const { client } = await overHttp('modern', ['elicitation'], { manual: true });
    const call = (params: Record<string, unknown>) =>
      client.request({ method: 'tools/call', params: { name: 'book_returning', arguments: {}, ...params } }, { allowInputRequired: true }) as Promise<Record<string, unknown>>;
    const first = await call({});
    expect(first).toMatchObject({ resultType: 'input_required', inputRequests: { guest: { method: 'elicitation/create', params: { message: 'Who is the booking for?' } } } });
    const guest = { guest: { action: 'accept', content: { name: 'Zebulon' } } };
    const second = await call({ inputResponses: guest, requestState: first.requestState });
    expect(second).toMatchObject({ resultType: 'input_required', inputRequests: { dish: { params: { message: 'What will Zebulon eat?' } } } });
    const state = second.requestState as string;
    // The name travels only inside the sealed state, which the client cannot read.
    expect(Buffer.from(state, 'base64url').toString('latin1')).not.toContain('Zebulon');
    const flipped = `${state.slice(0, 30)}${state[30] === 'A' ? 'B' : 'A'}${state.slice(31)}`;
    const dish = { dish: { action: 'accept', content: { dish: 'soup' } } };
    await expect(call({ inputResponses: dish, requestState: flipped })).rejects.toMatchObject({ code: -32602, data: { reason: 'tampered' } });
    expect(textOf(await call({ inputResponses: dish, requestState: state }))).toBe('Zebulon eats soup (round 2)');
  });

  it('asks again, with the same state, when the retry leaves a returned request unanswered', async () => {
    const { client } = await overHttp('modern', ['elicitation'], { manual: true });
    const call = (params: Record<string, unknown>) =>
      client.request({ method: 'tools/call', params: { name: 'book_returning', arguments: {}, ...params } }, { allowInputRequired: true }) as Promise<Record<string, unknown>>;
    const first = await call({});
    const again = await call({ inputResponses: {}, requestState: first.requestState });
    expect(again).toMatchObject({ resultType: 'input_required', inputRequests: { guest: { params: { message: 'Who is the booking for?' } } } });
    const done = await call({ inputResponses: { guest: { action: 'accept', content: { name: 'Ann' } } }, requestState: again.requestState });
    expect(done).toMatchObject({ inputRequests: { dish: { params: { message: 'What will Ann eat?' } } } });
  });

  it('reads a templated resource whose reader returns a request for input', async () => {
    await expectNote(await overHttp('modern', ['elicitation']));
  });

  it('gives an awaiting handler the state it kept in the attempt before, over stdio', async () => {
    const { client } = await overStdio('modern', ['elicitation']);
    const result = await client.callTool({ name: 'greet_keeping', arguments: {} });
    expect(textOf(result)).toBe('name-answer likes color-answer (attempt 3)');
  });
});

describe('legacy era: requests to the client over the session', () => {
  it('sends elicitation/create over stdio and answers with what the client returned', async () => {
    const { client, asked } = await sharedLegacyStdio();
    const result = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
    expect(textOf(result)).toBe('Hello, name-answer!');
    expect(asked).toHaveLength(1);
  });

  it('sends elicitation/create on the POST response stream over HTTP', async () => {
    await expectTwoSteps(await overHttp('legacy', ['elicitation']));
  });

  it('runs the same handler as the modern era: sampling and roots over stdio', async () => {
    await expectThreeKinds(await overStdio('legacy', ['elicitation', 'sampling', 'roots']));
  });

  it('fails the tool, asking nothing, when the client did not declare sampling (legacy has no -32021)', async () => {
    const { client, asked } = await overHttp('legacy', ['elicitation']);
    const result = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('The client did not declare the sampling capability that sampling/createMessage needs');
    expect(asked).toEqual([]);
  });

  it('sends the requests a handler returns and calls it again with the answers and its state, over HTTP', async () => {
    await expectBooking(await overHttp('legacy', ['elicitation']));
  });

  it('reads a templated resource whose reader returns a request for input', async () => {
    await expectNote(await overHttp('legacy', ['elicitation']));
  });

  it('runs the return-style handler over stdio, and an awaiting one in a single attempt', async () => {
    const peer = await sharedLegacyStdio();
    await expectBooking(peer);
    expect(textOf(await peer.client.callTool({ name: 'greet_keeping', arguments: {} }))).toBe('name-answer likes color-answer (attempt 1)');
  });

  it('cancels the pending ask when the tool call is cancelled', async () => {
    const { client } = newClient('legacy', []);
    client.registerCapabilities({ elicitation: {} });
    let asked!: () => void;
    const askArrived = new Promise<void>((resolve) => (asked = resolve));
    const askCancelled = new Promise<unknown>((resolve) => {
      client.setRequestHandler('elicitation/create', (_request, context) => {
        asked();
        // Never answered: settled only by the server's notifications/cancelled.
        return new Promise((_resolve, reject) => context.mcpReq.signal.addEventListener('abort', () => {
          resolve(context.mcpReq.signal.reason);
          reject(new Error('cancelled'));
        }));
      });
    });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [fixtureBundle(ASKING_FIXTURE)], stderr: 'inherit' }));
    const call = new AbortController();
    const pending = client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } }, { signal: call.signal });
    await askArrived;
    call.abort('the user gave up');
    await expect(pending).rejects.toThrow();
    expect(String(await askCancelled)).toContain('the request that asked was cancelled');
  });
});
