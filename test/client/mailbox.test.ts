import { describe, expect, it, vi } from 'vitest';
import { assign, createActor, setup } from 'xstate';
import {
  createMailbox,
  DeliveryDroppedError,
  SubscriberCallbackError,
  type MailboxOptions,
  type DeliveryTarget,
} from '../../src/client/mailbox.ts';
import type { SubscriberMessage, SubscriptionRef } from '../../src/client/messages.ts';

const ref: SubscriptionRef = { kind: 'stream', id: 1 };
const note = (n: number): SubscriberMessage => ({ type: 'notification', ref, method: 'notifications/resources/updated', params: { n } });

function options(overrides: Partial<MailboxOptions> = {}) {
  const events: string[] = [];
  const errors: SubscriberCallbackError[] = [];
  const opts: MailboxOptions = {
    ref,
    onDropped: (cap) => events.push(`dropped ${cap}`),
    onSubscriberStopped: () => events.push('stopped'),
    onSubscriberError: (error) => errors.push(error),
    ...overrides,
  };
  return { opts, events, errors };
}

function deferred() {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('mailbox: callback subscriber', () => {
  it('delivers notifications and the closed message in order', () => {
    const got: SubscriberMessage[] = [];
    const { opts } = options();
    const mailbox = createMailbox((m) => void got.push(m), opts);
    expect(mailbox.push(note(1))).toBe(true);
    mailbox.close({ type: 'graceful' });
    mailbox.close({ type: 'local' });
    expect(got).toEqual([note(1), { type: 'closed', ref, reason: { type: 'graceful' } }]);
    expect(mailbox.push(note(2))).toBe(false);
  });

  it('counts unsettled promises against the cap and sheds beyond it, once', async () => {
    const pending: ReturnType<typeof deferred>[] = [];
    const got: SubscriberMessage[] = [];
    const { opts, events } = options({ cap: 2 });
    const mailbox = createMailbox((m) => {
      got.push(m);
      const d = deferred();
      pending.push(d);
      return d.promise;
    }, opts);
    expect(mailbox.push(note(1))).toBe(true);
    expect(mailbox.push(note(2))).toBe(true);
    pending[0]?.resolve();
    await pending[0]?.promise;
    expect(mailbox.push(note(3))).toBe(true);
    expect(mailbox.push(note(4))).toBe(false);
    expect(mailbox.push(note(5))).toBe(false);
    expect(events).toEqual(['dropped 2']);
    // The closed message is delivered even at the cap.
    mailbox.close({ type: 'delivery_dropped', cap: 2 });
    expect(got.map((m) => m.type)).toEqual(['notification', 'notification', 'notification', 'closed']);
  });

  it('synchronous callbacks are never in flight', () => {
    const { opts, events } = options({ cap: 1 });
    const mailbox = createMailbox(() => undefined, opts);
    for (let n = 0; n < 10; n++) expect(mailbox.push(note(n))).toBe(true);
    expect(events).toEqual([]);
  });

  it('reports a throwing callback and keeps delivering', () => {
    const got: number[] = [];
    const { opts, errors } = options();
    const mailbox = createMailbox((m) => {
      if (m.type === 'notification' && m.params.n === 1) throw new Error('boom');
      if (m.type === 'notification') got.push(m.params.n as number);
    }, opts);
    mailbox.push(note(1));
    mailbox.push(note(2));
    expect(got).toEqual([2]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(SubscriberCallbackError);
    expect((errors[0]?.cause as Error).message).toBe('boom');
  });

  it('reports a rejected promise and frees its slot', async () => {
    const { opts, errors, events } = options({ cap: 1 });
    const d = deferred();
    const mailbox = createMailbox(() => d.promise, opts);
    mailbox.push(note(1));
    d.reject(new Error('async boom'));
    await d.promise.catch(() => undefined);
    await Promise.resolve();
    expect(errors.map((e) => (e.cause as Error).message)).toEqual(['async boom']);
    expect(mailbox.push(note(2))).toBe(true);
    expect(events).toEqual([]);
  });

  it('by default reports a failing callback as a process warning', async () => {
    const { opts } = options({ onSubscriberError: undefined });
    const warned = new Promise<Error>((resolve) => process.once('warning', resolve));
    const mailbox = createMailbox(() => {
      throw new Error('unheard');
    }, opts);
    mailbox.push(note(1));
    const warning = await warned;
    expect(warning).toBeInstanceOf(SubscriberCallbackError);
  });

  it('rejects a cap that is not a positive integer', () => {
    expect(() => createMailbox(() => undefined, options({ cap: 0 }).opts)).toThrow(RangeError);
  });
});

describe('mailbox: iterator subscriber', () => {
  const iterable = (subscriber: DeliveryTarget, opts: MailboxOptions) => {
    const mailbox = createMailbox(subscriber, opts);
    const iterator = mailbox.iterator;
    if (!iterator) throw new Error('no iterator');
    return { mailbox, iterator, loop: { [Symbol.asyncIterator]: () => iterator } };
  };

  it('yields queued and later messages in order, then the closed message, then ends', async () => {
    const { mailbox, loop } = iterable('iterator', options().opts);
    mailbox.push(note(1));
    const seen: SubscriberMessage[] = [];
    const done = (async () => {
      for await (const m of loop) seen.push(m);
    })();
    await Promise.resolve();
    mailbox.push(note(2));
    mailbox.close({ type: 'graceful' });
    await done;
    expect(seen).toEqual([note(1), note(2), { type: 'closed', ref, reason: { type: 'graceful' } }]);
  });

  it('counts messages not yet pulled against the cap; a shed delivery ends with DeliveryDroppedError after what it had', async () => {
    const { opts, events } = options({ cap: 2 });
    const { mailbox, loop } = iterable('iterator', opts);
    expect(mailbox.push(note(1))).toBe(true);
    expect(mailbox.push(note(2))).toBe(true);
    expect(mailbox.push(note(3))).toBe(false);
    expect(events).toEqual(['dropped 2']);
    mailbox.close({ type: 'delivery_dropped', cap: 2 });
    const seen: string[] = [];
    let thrown: unknown;
    try {
      for await (const m of loop) seen.push(m.type === 'notification' ? `n${String(m.params.n)}` : `${m.type}`);
    } catch (error) {
      thrown = error;
    }
    expect(seen).toEqual(['n1', 'n2', 'closed']);
    expect(thrown).toBeInstanceOf(DeliveryDroppedError);
    expect((thrown as DeliveryDroppedError).cap).toBe(2);
  });

  it('a waiting consumer takes a message directly, so it does not count against the cap', async () => {
    const { opts, events } = options({ cap: 1 });
    const { mailbox, iterator } = iterable('iterator', opts);
    const first = iterator.next();
    mailbox.push(note(1));
    expect(mailbox.push(note(2))).toBe(true);
    expect(await first).toEqual({ value: note(1), done: false });
    expect(events).toEqual([]);
  });

  it('leaving the loop early stops the subscriber (the stream closes as local)', async () => {
    const { opts, events } = options();
    const { mailbox, loop } = iterable('iterator', opts);
    mailbox.push(note(1));
    mailbox.push(note(2));
    for await (const m of loop) {
      expect(m).toEqual(note(1));
      break;
    }
    expect(events).toEqual(['stopped']);
    expect(mailbox.push(note(3))).toBe(false);
  });

  it('leaving after the closed message is not a stop', async () => {
    const { opts, events } = options();
    const { mailbox, loop } = iterable('iterator', opts);
    mailbox.close({ type: 'local' });
    for await (const m of loop) if (m.type === 'closed') break;
    expect(events).toEqual([]);
  });
});

describe('mailbox: actor subscriber', () => {
  const recorder = setup({
    types: { context: {} as { seen: SubscriberMessage[] }, events: {} as SubscriberMessage | { type: 'finish' } },
  }).createMachine({
    context: { seen: [] },
    initial: 'running',
    states: {
      running: {
        on: {
          '*': { actions: assign({ seen: ({ context, event }) => (event.type === 'finish' ? context.seen : [...context.seen, event as SubscriberMessage]) }) },
          finish: 'done',
        },
      },
      done: { type: 'final' },
    },
  });

  it('sends every message to the actor as an event', () => {
    const actor = createActor(recorder).start();
    const mailbox = createMailbox(actor, options().opts);
    mailbox.push(note(1));
    mailbox.close({ type: 'graceful' });
    expect(actor.getSnapshot().context.seen).toEqual([note(1), { type: 'closed', ref, reason: { type: 'graceful' } }]);
  });

  it('reports the actor stopping, and sends nothing to it afterwards', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { opts, events } = options();
    const actor = createActor(recorder).start();
    const mailbox = createMailbox(actor, opts);
    actor.stop();
    expect(events).toEqual(['stopped']);
    mailbox.close({ type: 'local' });
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });

  it('reports the actor reaching its final state as a stop', () => {
    const { opts, events } = options();
    const actor = createActor(recorder).start();
    createMailbox(actor, opts);
    actor.send({ type: 'finish' });
    expect(events).toEqual(['stopped']);
  });

  it('stops watching once closed', () => {
    const { opts, events } = options();
    const actor = createActor(recorder).start();
    const mailbox = createMailbox(actor, opts);
    mailbox.close({ type: 'local' });
    actor.stop();
    expect(events).toEqual([]);
  });
});
