/**
 * The cache machine's I/O bound to one client: the `negotiation` actor (the
 * client's current negotiation, or its next one), the `listen` actor (one
 * modern `subscriptions/listen` stream or one legacy notification listener,
 * chosen by era, reported back as `stream.*` events), and the fetch of one
 * entry. The application never sees which era path is taken.
 */
import { fromCallback, fromPromise, type EventObject } from 'xstate';
import type { CacheMachineEvent, CacheNegotiation, ListenInput, NegotiationInput } from '../../machines/cache.machine.ts';
import type { ClosedReason } from '../../machines/closed-reason.ts';
import type { McpClient } from '../client/client.ts';
import { connectionOf } from '../client/connection-of.ts';
import type { ListenerRef } from '../client/listeners.ts';
import type { SubscriberMessage } from '../client/messages.ts';
import type { Inspector } from '../runtime/actor-options.ts';
import { createListenStream, type ListenStream } from '../client/subscription.ts';
import { McpActorsError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { CachedList, EntryKey } from './entries.ts';
import { collectPages } from '../client/pages.ts';

/** A recovery attempt's negotiation did not come within its time. */
export class CacheNegotiationTimeoutError extends McpActorsError {
  override readonly name = 'CacheNegotiationTimeoutError';
  readonly code = 'cache_negotiation_timeout';
  constructor(/** The recovery attempt, counted from 1. */ readonly attempt: number, /** How long negotiation was waited for. */ readonly timeoutMs: number) {
    super(`recovery attempt ${attempt}: the connection did not negotiate within ${timeoutMs} ms`);
  }
}

/** The connection ended for good while the cache waited for it to negotiate. */
export class CacheConnectionClosedError extends McpActorsError {
  override readonly name = 'CacheConnectionClosedError';
  readonly code = 'cache_connection_closed';
  constructor(/** Why the connection ended. */ readonly reason: ClosedReason) {
    super(`the connection closed (${reason.type})`);
  }
}

export interface CacheIoOptions {
  /** How long a recovery attempt waits for the client to negotiate again; the first negotiation waits as long as it takes. */
  negotiationTimeoutMs: number;
  /** How long a modern listen waits for each acknowledgment (ChangeCacheOptions.ackTimeoutMs). */
  ackTimeoutMs: number;
  inspect?: Inspector;
}

const currentNegotiation = (client: McpClient): CacheNegotiation | undefined =>
  connectionOf(client).ready && client.era !== undefined
    ? { era: client.era, capabilities: client.serverCapabilities ?? {} }
    : undefined;

async function rediscover(client: McpClient, timeoutMs: number, signal: AbortSignal): Promise<CacheNegotiation> {
  const result = await client.request('server/discover', {}, { timeoutMs, signal });
  return { era: 'modern', capabilities: (result.capabilities as JsonObject | undefined) ?? {} };
}

export function cacheActors(client: McpClient, options: CacheIoOptions) {
  const negotiation = fromPromise<CacheNegotiation, NegotiationInput>(({ input, signal }) => {
    const now = currentNegotiation(client);
    // Recovering on a modern connection that is still up: the era is stateless, so asking server/discover
    // again is the fresh negotiation (a legacy session's capabilities are fixed by its initialize, and a
    // lost legacy connection negotiates anew when the client reconnects).
    if (now?.era === 'modern' && input.attempt > 0) return rediscover(client, options.negotiationTimeoutMs, signal);
    return new Promise<CacheNegotiation>((resolve, reject) => {
      if (now) return resolve(now);
      const done = () => {
        lifecycle.unsubscribe();
        if (timer !== undefined) clearTimeout(timer);
        signal.removeEventListener('abort', done);
      };
      const lifecycle = client.on('*', (event) => {
        if (event.type === 'connection.ready') {
          done();
          resolve({ era: event.era, capabilities: event.negotiated.capabilities });
        } else if (event.type === 'connection.closed') {
          done();
          reject(new CacheConnectionClosedError(event.reason));
        }
      });
      const timer =
        input.attempt > 0
          ? setTimeout(() => {
              done();
              reject(new CacheNegotiationTimeoutError(input.attempt, options.negotiationTimeoutMs));
            }, options.negotiationTimeoutMs)
          : undefined;
      signal.addEventListener('abort', done, { once: true });
    });
  });

  const listen = fromCallback<EventObject, ListenInput>(({ input, sendBack }) => {
    let stopped = false;
    const send = (event: CacheMachineEvent) => !stopped && sendBack(event);
    // `local` is this actor closing its own stream; every other end is the machine's to classify.
    const ended = (reason: ClosedReason) => {
      if (reason.type === 'graceful') send({ type: 'stream.ended_gracefully' });
      else if (reason.type === 'reconnect_exhausted') send({ type: 'stream.exhausted', attempts: reason.attempts, cause: reason.cause });
      // The client closed the connection (a listener hears it before the cache does): the cache ends with it.
      else if (reason.type === 'disconnected' || reason.type === 'shutdown') send({ type: 'connection.closed', reason });
      else if (reason.type !== 'local') send({ type: 'stream.closed_unexpectedly', cause: reason });
    };
    let stream: ListenStream | undefined;
    const subscriber = (message: SubscriberMessage) => {
      if (message.type === 'notification') send({ type: 'stream.notification', method: message.method, params: message.params });
      // The stream resumed after a gap: re-listened and resynced (modern, with what it honors now), or resubscribed
      // (legacy, with the URIs the new session refused: the machine decides they are no longer covered).
      else if (message.type === 'reconnected') {
        const failed = 'report' in message ? message.report.failed.map((failure) => failure.uri) : [];
        send({
          type: 'stream.resumed',
          ...(stream?.honoredFilter ? { honored: stream.honoredFilter } : {}),
          ...(failed.length > 0 ? { failed } : {}),
        });
      } else if (message.type === 'closed' && message.ref.kind === 'listener') ended(message.reason);
    };
    let release = () => {};
    if (input.era === 'modern') {
      try {
        // Opened on the connection, which owns it as it owns every stream: the connection machine tells it the lifecycle.
        stream = createListenStream(connectionOf(client), input.filter, subscriber, { ackTimeoutMs: options.ackTimeoutMs });
      } catch (cause) {
        send({ type: 'stream.closed_unexpectedly', cause });
        return () => {
          stopped = true;
        };
      }
      const opened = stream;
      // The connection's verdict that the live server dropped this stream (it re-listens on its own): the gap is a fact
      // the subscriber hears nothing of until the stream resumes.
      const verdicts = connectionOf(client).actor.on('listen.ended_alone', (event) => {
        if (event.id === opened.id) send({ type: 'stream.interrupted', cause: event.cause });
      });
      release = () => {
        verdicts.unsubscribe();
        opened.close();
      };
      opened.acknowledged.then(
        () => send({ type: 'stream.opened', ...(opened.honoredFilter ? { honored: opened.honoredFilter } : {}) }),
        () => {}, // `closed` reports why
      );
      void opened.closed.then(ended);
      // The connection actor, the stream's owner, pauses it on connection.lost and re-listens on connection.ready. A
      // stream whose filter is out of date never re-listens: the cache hears connection.ready first and closes it.
    } else {
      // A legacy listener hears the connection's lifecycle from the connection too.
      client.subscribeNotifications(input.filter, subscriber).then(
        (ref: ListenerRef) => {
          // A listener removed while the connection is down has nothing left to release on the server. Once the
          // connection closed (the cache hears it before its listener does) the listener ends with it, told by the
          // connection itself; closing it here first would leave that announcement for an actor already stopped.
          release = () => {
            if (client.state !== 'closed') void client.unsubscribeNotifications(ref).catch(() => {});
          };
          if (stopped) return release();
          send({ type: 'stream.opened' });
        },
        (cause: unknown) => send({ type: 'stream.closed_unexpectedly', cause }),
      );
    }
    return () => {
      stopped = true;
      release();
    };
  });

  return { negotiation, listen };
}

export interface Fetched {
  value: JsonObject[] | JsonObject;
  ttlMs: number | undefined;
}

/** A result's `ttlMs`; undefined when absent or negative, which the caching page says to take as 0 (never fresh). */
const ttlOf = (result: JsonObject): number | undefined =>
  typeof result.ttlMs === 'number' && Number.isFinite(result.ttlMs) && result.ttlMs >= 0 ? result.ttlMs : undefined;

/**
 * A list is as fresh as its least fresh page, and a page with no ttl is
 * never fresh, so one such page leaves the whole list with none.
 */
const leastFresh = (pages: (number | undefined)[]): number | undefined =>
  pages.some((ttl) => ttl === undefined) ? undefined : Math.min(...(pages as number[]));

/**
 * Fetches one entry: a whole list, following `nextCursor` to the end (paged
 * here rather than with the client's list helpers so each page's `ttlMs`
 * is kept), or one resource's `resources/read` result.
 */
export async function fetchEntry(client: Pick<McpClient, 'request' | 'readResource'>, key: EntryKey): Promise<Fetched> {
  if (key.startsWith('resource:')) {
    const result = await client.readResource(key.slice('resource:'.length));
    return { value: result, ttlMs: ttlOf(result) };
  }
  const ttls: (number | undefined)[] = [];
  const items = await collectPages(key as CachedList, (method, params) => client.request(method, params), (page) => {
    ttls.push(ttlOf(page));
  });
  return { value: items, ttlMs: leastFresh(ttls) };
}
