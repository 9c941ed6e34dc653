/**
 * A request whose params JSON cannot carry (a BigInt, a cycle) rejects with
 * UnserializableMessageError: nothing is sent, the connection stays ready,
 * and the request leaves nothing behind. Before, the throw escaped
 * `client.request` synchronously and left the request tracked: its timeout
 * later rejected a promise nobody held, which ends a Node process, and sent
 * `notifications/cancelled` for a request the server never saw.
 */
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { UnserializableMessageError } from '../../src/protocol/errors.ts';
import type { JsonObject } from '../../src/protocol/jsonrpc.ts';
import { LATEST_LEGACY_VERSION } from '../../src/protocol/versions.ts';
import { inMemoryTransport } from '../../src/transport/in-memory.ts';

const clients: McpClient[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** A legacy peer that answers every request with an empty result and records what it receives. */
function recordingPeer() {
  const received: JsonObject[] = [];
  const transport = inMemoryTransport((end) => {
    createInterface({ input: end.stdin }).on('line', (line) => {
      const message = JSON.parse(line) as JsonObject;
      received.push(message);
      if (message.id === undefined) return;
      const result =
        message.method === 'initialize'
          ? { protocolVersion: LATEST_LEGACY_VERSION, capabilities: {}, serverInfo: { name: 'recording', version: '1' } }
          : { echoed: message.method ?? null };
      end.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n`);
    });
  });
  return { received, transport };
}

describe('a request JSON cannot carry', () => {
  it('rejects with UnserializableMessageError, sends nothing, and leaves no timeout behind', async () => {
    const { received, transport } = recordingPeer();
    const client = createClient({ transport, era: 'legacy', reconnect: false, requestTimeoutMs: 1_000 });
    clients.push(client);
    await client.connect();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const cyclic: JsonObject = {};
    cyclic.self = cyclic;
    for (const params of [{ n: 1n as unknown as number }, cyclic]) {
      const error = await client.request('test/echo', params).then(() => undefined, (caught: unknown) => caught);
      expect(error).toBeInstanceOf(UnserializableMessageError);
      expect(error).toMatchObject({ code: 'unserializable_message', method: 'test/echo' });
    }
    // Past the request timeout: nothing was left to time out, so no cancel goes out (and no rejection is left unheld).
    vi.advanceTimersByTime(5_000);
    vi.useRealTimers();
    expect(await client.request('test/after')).toMatchObject({ echoed: 'test/after' });
    expect(received.map((message) => message.method)).toEqual(['initialize', 'notifications/initialized', 'test/after']);
    expect(client.state).toBe('online.ready.legacy');
  });
});
