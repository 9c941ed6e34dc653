/**
 * The URI worker: one per client, on a legacy-era connection. Every
 * `resources/subscribe` and `resources/unsubscribe` the notification
 * listeners need runs here, one at a time, so their effects on the server
 * never interleave.
 *
 * Bookkeeping: `holders` maps each held URI to the listeners that acquired it
 * (its refcount is the length). The server keeps one subscription per URI, so
 * the first holder sends `resources/subscribe` and the last one to leave sends
 * `resources/unsubscribe`. A listener releases exactly the URIs it holds, so it
 * can never take away a subscription another listener acquired.
 *
 * `lost` marks held URIs with no subscription in the current server session:
 * all of them while the transport is down, and those whose re-subscription
 * failed after a reconnect. Invariant at rest: the server's subscription set is
 * exactly the held URIs that are not lost. An acquire of a lost URI goes to the
 * wire again; a lost URI whose last holder leaves is dropped without a request.
 *
 * The wire itself is the invoked `wire` actor, provided by src/client.
 */
import { assign, enqueueActions, fromPromise, setup } from 'xstate';
import type { ClosedReason } from './closed-reason.ts';
import type { Era } from './era.ts';

export interface WireOp {
  op: 'subscribe' | 'unsubscribe';
  uri: string;
}

/** What one reconnect's re-subscription achieved. */
export interface UriReport {
  resubscribed: string[];
  failed: { uri: string; reason: unknown }[];
}

export type UriJob =
  /** Make `listenerId` a holder of every URI in `uris`; `next` is the first not yet held. */
  | { kind: 'acquire'; listenerId: string; uris: string[]; next: number }
  /** Drop every URI `listenerId` holds; with `failure`, this is the rollback of its failed acquire. */
  | { kind: 'release'; listenerId: string; failure?: { uri: string; cause: unknown } }
  /** After a reconnect: subscribe every URI still held, in order. */
  | { kind: 'resubscribe'; generation: number; pending: string[]; report: UriReport };

export interface UriWorkerContext {
  holders: Record<string, string[]>;
  lost: string[];
  /** The head job is the one running while the worker is `working`. */
  queue: UriJob[];
  inFlight: WireOp | undefined;
  /** The connection generation the held subscriptions belong to; undefined before the first. */
  generation: number | undefined;
  /** Why its connection closed (its output); undefined while open or when its owner closed it. */
  closedReason?: ClosedReason;
}

export interface UriWorkerInput {
  /** The current connection generation when the connection is ready, else undefined. */
  generation: number | undefined;
}

export type UriWorkerEvent =
  /** A listener holds these URIs from now on (subscribed on the server by the first holder). */
  | { type: 'uris.acquire'; listenerId: string; uris: string[] }
  /** A listener lets go of every URI it holds (unsubscribed by the last holder). */
  | { type: 'uris.release'; listenerId: string }
  | { type: 'connection.lost' }
  | { type: 'connection.ready'; era: Era; generation: number }
  | { type: 'connection.era_changed'; to: Era }
  /** The owner closes the worker (the same `close` as a stream's and a listener's). */
  | { type: 'close' }
  /** The connection that owns the worker ended for good; the reason is the worker's output. */
  | { type: 'connection.closed'; reason: ClosedReason };

export type UriWorkerEmitted =
  | { type: 'acquire.done'; listenerId: string }
  | { type: 'acquire.failed'; listenerId: string; uri: string; cause: unknown }
  /** The listener was released before its acquire ran to completion. */
  | { type: 'acquire.cancelled'; listenerId: string }
  | { type: 'release.done'; listenerId: string }
  | { type: 'resubscribe.done'; generation: number; report: UriReport };

interface Result {
  context: UriWorkerContext;
  emitted: UriWorkerEmitted[];
}

const draftOf = (c: UriWorkerContext): UriWorkerContext => ({
  ...c,
  holders: Object.fromEntries(Object.entries(c.holders).map(([uri, ids]) => [uri, [...ids]])),
  lost: [...c.lost],
  queue: c.queue.map((job) => ({ ...job })),
});

const isLive = (d: UriWorkerContext, uri: string): boolean => d.holders[uri] !== undefined && !d.lost.includes(uri);

/** Drops one holder; returns the URI's unsubscribe when that leaves a live URI unheld. */
function dropHolder(d: UriWorkerContext, uri: string, listenerId: string): WireOp | undefined {
  const rest = (d.holders[uri] ?? []).filter((id) => id !== listenerId);
  if (rest.length > 0) {
    d.holders[uri] = rest;
    return undefined;
  }
  const wasLost = d.lost.includes(uri);
  delete d.holders[uri];
  d.lost = d.lost.filter((u) => u !== uri);
  return wasLost ? undefined : { op: 'unsubscribe', uri };
}

/** Runs the head job up to its next wire request; returns undefined when the job finished. */
function stepHead(d: UriWorkerContext, emitted: UriWorkerEmitted[]): WireOp | undefined {
  const job = d.queue[0]!;
  switch (job.kind) {
    case 'acquire':
      for (; job.next < job.uris.length; job.next++) {
        const uri = job.uris[job.next]!;
        if (!isLive(d, uri)) return { op: 'subscribe', uri };
        if (!d.holders[uri]!.includes(job.listenerId)) d.holders[uri]!.push(job.listenerId);
      }
      emitted.push({ type: 'acquire.done', listenerId: job.listenerId });
      break;
    case 'release':
      for (const uri of Object.keys(d.holders)) {
        if (!d.holders[uri]!.includes(job.listenerId)) continue;
        const op = dropHolder(d, uri, job.listenerId);
        if (op) return op;
      }
      emitted.push(
        job.failure
          ? { type: 'acquire.failed', listenerId: job.listenerId, uri: job.failure.uri, cause: job.failure.cause }
          : { type: 'release.done', listenerId: job.listenerId },
      );
      break;
    case 'resubscribe':
      job.pending = job.pending.filter((uri) => d.holders[uri] !== undefined);
      if (job.pending.length > 0) return { op: 'subscribe', uri: job.pending[0]! };
      emitted.push({ type: 'resubscribe.done', generation: job.generation, report: job.report });
      break;
  }
  d.queue.shift();
  return undefined;
}

/** Runs queued jobs until one needs the wire or the queue is empty. */
function plan(c: UriWorkerContext): Result {
  const d = draftOf(c);
  const emitted: UriWorkerEmitted[] = [];
  d.inFlight = undefined;
  while (d.queue.length > 0 && d.inFlight === undefined) d.inFlight = stepHead(d, emitted);
  return { context: d, emitted };
}

/** Records how the in-flight request of the head job ended. */
function applyWire(c: UriWorkerContext, failure: { cause: unknown } | undefined): UriWorkerContext {
  const d = draftOf(c);
  const job = d.queue[0];
  if (job?.kind === 'acquire') {
    const uri = job.uris[job.next]!;
    if (failure) {
      d.queue[0] = { kind: 'release', listenerId: job.listenerId, failure: { uri, cause: failure.cause } };
    } else {
      const ids = d.holders[uri] ?? [];
      d.holders[uri] = ids.includes(job.listenerId) ? ids : [...ids, job.listenerId];
      d.lost = d.lost.filter((u) => u !== uri);
      job.next += 1;
    }
  } else if (job?.kind === 'resubscribe') {
    const [uri, ...rest] = job.pending;
    job.pending = rest;
    if (failure) {
      job.report = { ...job.report, failed: [...job.report.failed, { uri: uri!, reason: failure.cause }] };
    } else {
      d.lost = d.lost.filter((u) => u !== uri);
      job.report = { ...job.report, resubscribed: [...job.report.resubscribed, uri!] };
    }
  }
  // A release's bookkeeping happened before its unsubscribe was sent; a failed unsubscribe changes nothing here.
  d.inFlight = undefined;
  return d;
}

/**
 * While the transport is down nothing held is on the server, so releases
 * finish without requests, and nothing is running, so a released listener's
 * acquire (even one that was interrupted halfway) is withdrawn.
 */
function settleOffline(d: UriWorkerContext): Result {
  const emitted: UriWorkerEmitted[] = [];
  const releases = d.queue.filter((job) => job.kind === 'release');
  const released = new Set(releases.map((job) => job.listenerId));
  d.queue = d.queue.filter((job) => {
    if (job.kind !== 'acquire') return false;
    if (released.has(job.listenerId)) emitted.push({ type: 'acquire.cancelled', listenerId: job.listenerId });
    return !released.has(job.listenerId);
  });
  for (const job of releases) {
    d.queue.unshift(job);
    stepHead(d, emitted);
  }
  return { context: d, emitted };
}

function enqueue(c: UriWorkerContext, event: UriWorkerEvent, running: boolean): Result {
  const d = draftOf(c);
  const emitted: UriWorkerEmitted[] = [];
  if (event.type === 'uris.acquire') {
    d.queue.push({ kind: 'acquire', listenerId: event.listenerId, uris: event.uris, next: 0 });
  } else if (event.type === 'uris.release') {
    // An acquire that has not started yet is withdrawn instead of run and undone.
    const keep = d.queue.filter(
      (job, index) => (running && index === 0) || job.kind !== 'acquire' || job.listenerId !== event.listenerId,
    );
    if (keep.length < d.queue.length) emitted.push({ type: 'acquire.cancelled', listenerId: event.listenerId });
    d.queue = [...keep, { kind: 'release', listenerId: event.listenerId }];
  }
  return { context: d, emitted };
}

/** The transport dropped: the server session and everything subscribed in it are gone. */
function interrupt(c: UriWorkerContext): Result {
  const d = draftOf(c);
  d.inFlight = undefined;
  d.queue = d.queue
    .filter((job) => job.kind !== 'resubscribe')
    .map((job) => (job.kind === 'acquire' ? { ...job, next: 0 } : job));
  d.lost = Object.keys(d.holders);
  return settleOffline(d);
}

function resubscribe(c: UriWorkerContext, generation: number): UriWorkerContext {
  const job: UriJob = { kind: 'resubscribe', generation, pending: Object.keys(c.holders), report: { resubscribed: [], failed: [] } };
  return { ...c, generation, queue: [job, ...c.queue] };
}

const emptyContext = (generation: number | undefined): UriWorkerContext => ({
  holders: {},
  lost: [],
  queue: [],
  inFlight: undefined,
  generation,
});

interface Commit {
  assign(context: UriWorkerContext): void;
  emit(event: UriWorkerEmitted): void;
}

function commit(enqueueAction: Commit, result: Result): void {
  enqueueAction.assign(result.context);
  for (const event of result.emitted) enqueueAction.emit(event);
}

export const uriWorkerMachine = setup({
  types: {
    context: {} as UriWorkerContext,
    events: {} as UriWorkerEvent,
    input: {} as UriWorkerInput,
    emitted: {} as UriWorkerEmitted,
    output: {} as ClosedReason,
  },
  actors: {
    /** Sends one request; resolves on success, rejects with the cause. Provided by src/client. */
    wire: fromPromise<void, WireOp>(async () => {
      throw new Error('the wire actor is provided by src/client');
    }),
  },
  guards: {
    hasInFlight: ({ context }) => context.inFlight !== undefined,
    startsReady: ({ context }) => context.generation !== undefined,
    readyLegacy: ({ event }) => event.type === 'connection.ready' && event.era === 'legacy',
    /** A ready for a newer generation with no loss seen first: the session changed under us. */
    newerLegacySession: ({ context, event }) =>
      event.type === 'connection.ready' && event.era === 'legacy' && event.generation !== context.generation,
    toModern: ({ event }) => event.type === 'connection.era_changed' && event.to === 'modern',
  },
  actions: {
    enqueueJob: enqueueActions(({ context, event, enqueue: q }) => commit(q, enqueue(context, event, false))),
    enqueueBehindRunning: enqueueActions(({ context, event, enqueue: q }) => commit(q, enqueue(context, event, true))),
    enqueueOffline: enqueueActions(({ context, event, enqueue: q }) => {
      const queued = enqueue(context, event, false);
      const settled = settleOffline(queued.context);
      commit(q, { context: settled.context, emitted: [...queued.emitted, ...settled.emitted] });
    }),
    runQueue: enqueueActions(({ context, enqueue: q }) => commit(q, plan(context))),
    interrupt: enqueueActions(({ context, enqueue: q }) => commit(q, interrupt(context))),
    startResubscribe: enqueueActions(({ context, event, enqueue: q }) => {
      if (event.type === 'connection.ready') q.assign(resubscribe(context, event.generation));
    }),
    wireSucceeded: enqueueActions(({ context, enqueue: q }) => q.assign(applyWire(context, undefined))),
    wireFailed: enqueueActions(({ context, enqueue: q }, params: { cause: unknown }) => q.assign(applyWire(context, params))),
    forgetAll: enqueueActions(({ context, enqueue: q }) => q.assign(emptyContext(context.generation))),
  },
}).createMachine({
  id: 'uriWorker',
  context: ({ input }) => emptyContext(input.generation),
  initial: 'starting',
  on: {
    'connection.era_changed': { guard: 'toModern', target: '.paused', actions: 'forgetAll' },
    close: '.closed',
    'connection.closed': { target: '.closed', actions: assign({ closedReason: ({ event }) => event.reason }) },
  },
  states: {
    starting: { always: [{ guard: 'startsReady', target: 'idle' }, { target: 'paused' }] },
    idle: {
      on: {
        'uris.acquire': { target: 'dispatching', actions: 'enqueueJob' },
        'uris.release': { target: 'dispatching', actions: 'enqueueJob' },
        'connection.lost': { target: 'paused', actions: 'interrupt' },
        'connection.ready': { guard: 'newerLegacySession', target: 'dispatching', actions: ['interrupt', 'startResubscribe'] },
      },
    },
    dispatching: {
      entry: 'runQueue',
      always: [{ guard: 'hasInFlight', target: 'working' }, { target: 'idle' }],
    },
    working: {
      invoke: {
        src: 'wire',
        input: ({ context }) => context.inFlight!,
        onDone: { target: 'dispatching', actions: 'wireSucceeded' },
        onError: { target: 'dispatching', actions: { type: 'wireFailed', params: ({ event }) => ({ cause: event.error }) } },
      },
      on: {
        'uris.acquire': { actions: 'enqueueBehindRunning' },
        'uris.release': { actions: 'enqueueBehindRunning' },
        'connection.lost': { target: 'paused', actions: 'interrupt' },
        'connection.ready': { guard: 'newerLegacySession', target: 'dispatching', actions: ['interrupt', 'startResubscribe'] },
      },
    },
    paused: {
      on: {
        'uris.acquire': { actions: 'enqueueOffline' },
        'uris.release': { actions: 'enqueueOffline' },
        'connection.ready': { guard: 'readyLegacy', target: 'dispatching', actions: 'startResubscribe' },
      },
    },
    closed: { type: 'final' },
  },
  // Closed by its owner rather than its connection: `local`.
  output: ({ context }) => context.closedReason ?? { type: 'local' },
});
