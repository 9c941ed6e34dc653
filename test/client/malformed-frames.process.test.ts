/**
 * A scripted peer feeds the client frames no real server would send. Each
 * is reported as a typed error event; the connection keeps working and no
 * pending request is lost or resolved wrongly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { FrameError } from '../../src/protocol/jsonrpc.ts';
import { NegotiationError, RequestAbortedError, RequestTimeoutError, UnexpectedResponseError } from '../../src/protocol/errors.ts';
import { scriptedStdio } from '../fixtures/stdio-peers.ts';

let client: McpClient;
const errors: Error[] = [];

beforeAll(async () => {
  client = createClient({ transport: scriptedStdio(['--era', 'modern']).factory });
  client.onError((error) => errors.push(error));
  await client.connect();
});
afterAll(() => client.close());

/** Sends raw lines through the peer while a real request is in flight, then checks both. */
async function feed(lines: string[]): Promise<Error[]> {
  errors.length = 0;
  let heldSettled = false;
  const held = client.request('script/hold', {}, { timeoutMs: 60_000 });
  held.then(
    () => (heldSettled = true),
    () => (heldSettled = true),
  );
  await client.request('script/emit', { lines });
  const tools = await client.request('tools/list');
  expect(tools.tools).toEqual([expect.objectContaining({ name: 'scripted' })]);
  expect(client.state).toBe('online.ready.modern');
  // The request in flight was neither lost nor resolved by the stray frame.
  expect(heldSettled).toBe(false);
  return [...errors];
}

describe('malformed frames from the peer', () => {
  it.each([
    ['a garbage line', 'this is not json', 'unparseable'],
    ['truncated JSON', '{"jsonrpc":"2.0","method":"notifications/tools/list_ch', 'unparseable'],
    ['a batch whose one element is no message', '[1]', 'not_an_object'],
    ['an empty batch', '[]', 'wrong_shape'],
    ['a bare string', '"hello"', 'not_an_object'],
    ['a wrong jsonrpc version', '{"jsonrpc":"1.0","method":"x"}', 'wrong_version'],
    ['params that are not an object', '{"jsonrpc":"2.0","method":"notifications/message","params":[1]}', 'wrong_shape'],
    ['an error without a code', '{"jsonrpc":"2.0","id":7,"error":{"message":"x"}}', 'wrong_shape'],
    ['a result that is not an object', '{"jsonrpc":"2.0","id":7,"result":42}', 'wrong_shape'],
  ])('%s gives a FrameError and the connection keeps working', async (_name, line, problem) => {
    const reported = await feed([line]);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toBeInstanceOf(FrameError);
    expect(reported[0]).toMatchObject({ problem });
  });

  it('a response to an unknown id is reported and resolves nothing', async () => {
    const reported = await feed(['{"jsonrpc":"2.0","id":987654,"result":{}}']);
    expect(reported).toEqual([expect.any(UnexpectedResponseError)]);
  });

  it('an oversized frame is refused and the next frames still arrive', async () => {
    errors.length = 0;
    await client.request('script/oversized', { chars: 5 * 1024 * 1024 });
    expect(errors).toEqual([expect.objectContaining({ problem: 'oversized' })]);
    expect((await client.request('tools/list')).tools).toHaveLength(1);
  });

  it('a request that never gets an answer times out without disturbing others', async () => {
    const held = client.request('script/hold', {}, { timeoutMs: 30 });
    const tools = client.request('tools/list');
    await expect(held).rejects.toBeInstanceOf(RequestTimeoutError);
    expect((await tools).tools).toHaveLength(1);
  });
});

describe('a modern peer slower than the probe', () => {
  it('is still found modern: the initialize sent beside the probe is refused, and the late discover answer decides', async () => {
    const slow = createClient({ transport: scriptedStdio(['--era', 'modern', '--discover-delay', '150']).factory, probeTimeoutMs: 50 });
    await slow.connect();
    expect(slow.era).toBe('modern');
    await slow.close();
  });

  it('is still found modern with the era pinned to modern: the probe timeout does not apply', async () => {
    const slow = createClient({ transport: scriptedStdio(['--era', 'modern', '--discover-delay', '150']).factory, probeTimeoutMs: 50, era: 'modern' });
    await slow.connect();
    expect(slow.era).toBe('modern');
    await slow.close();
  });
});

describe('a peer that speaks neither era', () => {
  it('fails to connect with a NegotiationError', async () => {
    const neither = createClient({ transport: scriptedStdio(['--era', 'none']).factory });
    const failure = await neither.connect().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NegotiationError);
    expect((failure as Error).message).toContain('neither era');
    await neither.close();
  });
});

describe('cancellation on stdio', () => {
  it('an aborted request sends notifications/cancelled with its request id', async () => {
    const before = ((await client.request('script/received')).messages as unknown[]).length;
    const controller = new AbortController();
    const held = client.request('script/hold', {}, { signal: controller.signal });
    controller.abort();
    await expect(held).rejects.toBeInstanceOf(RequestAbortedError);
    const after = (await client.request('script/received')).messages as { method: string; params: { requestId: unknown } }[];
    const sent = after.slice(before);
    expect(sent.map((message) => message.method)).toEqual(['notifications/cancelled']);
    expect(typeof sent[0]!.params.requestId).toBe('number');
  });

  it('a timed-out request is cancelled on the wire too', async () => {
    const before = ((await client.request('script/received')).messages as unknown[]).length;
    await expect(client.request('script/hold', {}, { timeoutMs: 10 })).rejects.toBeInstanceOf(RequestTimeoutError);
    const after = (await client.request('script/received')).messages as { method: string }[];
    expect(after.slice(before).map((message) => message.method)).toEqual(['notifications/cancelled']);
  });
});
