/**
 * Requests a legacy session sends to its client for a handler: the
 * client-request machine on the simulated clock, and the session's
 * correlation of answers by id over an in-memory channel.
 */
import { createActor, SimulatedClock } from 'xstate';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientRequestMachine } from '../../machines/client-request.machine.ts';
import { ClientRequests } from '../../src/server/client-requests.ts';
import { ClientRequestCancelledError, ClientRequestRefusedError } from '../../src/server/errors.ts';

afterEach(() => void vi.restoreAllMocks());

describe('client-request machine', () => {
  it('times out after askTimeout, not before', () => {
    const clock = new SimulatedClock();
    const actor = createActor(clientRequestMachine, { input: { timeoutMs: 60_000 }, clock }).start();
    clock.increment(59_999);
    expect(actor.getSnapshot().status).toBe('active');
    clock.increment(1);
    expect(actor.getSnapshot().output).toEqual({ type: 'timed_out', timeoutMs: 60_000 });
  });

  it('settles on the answer, and the timeout no longer applies', () => {
    const clock = new SimulatedClock();
    const actor = createActor(clientRequestMachine, { input: { timeoutMs: 1_000 }, clock }).start();
    actor.send({ type: 'response.result', result: { roots: [] } });
    clock.increment(5_000);
    expect(actor.getSnapshot().output).toEqual({ type: 'answered', result: { roots: [] } });
  });
});

/** A channel that records what the session wrote for the asking request, and what it told the client otherwise. */
function harness() {
  const written: Record<string, unknown>[] = [];
  const told: Record<string, unknown>[] = [];
  const requests = new ClientRequests(60_000, (json) => told.push(JSON.parse(json) as Record<string, unknown>));
  let wrote: () => void = () => {};
  const channel = {
    notify: async (json: string) => {
      written.push(JSON.parse(json) as Record<string, unknown>);
      wrote();
    },
  };
  const nextWrite = () => new Promise<void>((resolve) => (wrote = resolve));
  return { requests, channel, written, told, nextWrite };
}

describe('ClientRequests', () => {
  it('writes each ask with its own id and settles it by the id of the answer', async () => {
    const { requests, channel, written, nextWrite } = harness();
    const asker = requests.askerFor(channel, new AbortController().signal);
    const first = nextWrite();
    const roots = asker.ask('roots/list', {}, 'ignored');
    await first;
    const second = nextWrite();
    const elicited = asker.ask('elicitation/create', { message: 'Name?' }, 'ignored');
    await second;
    expect(written.map((frame) => frame.method)).toEqual(['roots/list', 'elicitation/create']);
    const [rootsId, elicitId] = written.map((frame) => frame.id as string);
    expect(rootsId).not.toBe(elicitId);
    expect(requests.settle({ jsonrpc: '2.0', id: elicitId!, result: { action: 'decline' } })).toBe(true);
    expect(requests.settle({ jsonrpc: '2.0', id: rootsId!, error: { code: -32601, message: 'no roots here' } })).toBe(true);
    await expect(elicited).resolves.toEqual({ action: 'decline' });
    await expect(roots).rejects.toBeInstanceOf(ClientRequestRefusedError);
    // Settled once: a duplicate answer is stray.
    expect(requests.settle({ jsonrpc: '2.0', id: elicitId!, result: { action: 'accept' } })).toBe(false);
  });

  it('tells the client with notifications/cancelled when the asking request is cancelled', async () => {
    const { requests, channel, written, told, nextWrite } = harness();
    const controller = new AbortController();
    const wrote = nextWrite();
    const pending = requests.askerFor(channel, controller.signal).ask('sampling/createMessage', { messages: [], maxTokens: 1 }, 'k');
    await wrote;
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'ClientRequestCancelledError', why: 'request_cancelled' });
    expect(told).toEqual([{
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: written[0]!.id, reason: 'the request that asked was cancelled' },
    }]);
  });

  it('rejects what is pending when the session ends, and tells the client nothing', async () => {
    const { requests, channel, told, nextWrite } = harness();
    const wrote = nextWrite();
    const pending = requests.askerFor(channel, new AbortController().signal).ask('roots/list', {}, 'k');
    await wrote;
    requests.close();
    await expect(pending).rejects.toEqual(new ClientRequestCancelledError('roots/list', 'session_ended'));
    expect(told).toEqual([]);
  });

  it('asks many at once for one request without Node warning of a listener leak on its signal', async () => {
    const { requests, channel, written } = harness();
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const controller = new AbortController();
      const asker = requests.askerFor(channel, controller.signal);
      const asks = Array.from({ length: 12 }, (_, index) => asker.ask('roots/list', {}, `k${index}`));
      // Each ask writes in a later turn; a warning is emitted on the next tick after the listener that passed 10.
      await vi.waitFor(() => expect(written).toHaveLength(12));
      await new Promise<void>((resolve) => setImmediate(resolve));
      controller.abort();
      for (const ask of asks) await expect(ask).rejects.toMatchObject({ why: 'request_cancelled' });
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  // Either order happens: a request cancelled as its session ends; a session shed for its client (it ends, closing
  // what its requests asked, then aborts them).
  it.each([
    { first: 'the asking request aborts', abortFirst: true, why: 'request_cancelled' },
    { first: 'the session ends', abortFirst: false, why: 'session_ended' },
  ])('sends nothing to an ask already settled when $first and then the other follows at once', async ({ abortFirst, why }) => {
    const { requests, channel, nextWrite } = harness();
    const warn = vi.spyOn(console, 'warn');
    const controller = new AbortController();
    const wrote = nextWrite();
    const pending = requests.askerFor(channel, controller.signal).ask('roots/list', {}, 'k');
    await wrote;
    const steps = [() => controller.abort(), () => requests.close()];
    for (const step of abortFirst ? steps : steps.reverse()) step();
    await expect(pending).rejects.toMatchObject({ why });
    expect(warn.mock.calls.filter(([text]) => String(text).includes('stopped actor'))).toEqual([]);
  });
});
