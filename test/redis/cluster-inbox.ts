/**
 * What each client of the cluster tests received, against the test's
 * timeline of published changes: a change counts as received or covered when
 * the same notification arrived after it was published.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { SubscriberMessage } from '../../src/index.ts';

/** Keys of the notifications the cluster tests follow. */
export const TOOLS = 'notifications/tools/list_changed';
export const PROMPTS = 'notifications/prompts/list_changed';
export const UPDATED = 'notifications/resources/updated';

/** The test's timeline: keys of the changes published so far (a test empties it in afterEach). */
export const published: string[] = [];

/** What a client got, as `method` or `method uri`, in arrival order, with a way to wait for one. */
export class Inbox {
  readonly seen: string[] = [];
  /** For each arrival, how many changes the test had published by then. */
  readonly at: number[] = [];
  readonly reconnects: SubscriberMessage[] = [];
  private waiters: Array<{ key: string; count: number; resolve: () => void }> = [];
  private coverWaiters: Array<{ wanted: readonly string[]; resolve: () => void }> = [];

  push(method: string, params: unknown): void {
    const uri = (params as { uri?: unknown } | undefined)?.uri;
    this.seen.push(typeof uri === 'string' ? `${method} ${uri}` : method);
    this.at.push(published.length);
    this.waiters = this.waiters.filter((waiter) => !(this.count(waiter.key) >= waiter.count && (waiter.resolve(), true)));
    this.coverWaiters = this.coverWaiters.filter((waiter) => !(this.uncovered(waiter.wanted).length === 0 && (waiter.resolve(), true)));
  }

  /** Resolves once every published change among `wanted` arrived or is covered (the test times out otherwise). */
  covered(wanted: readonly string[]): Promise<void> {
    if (this.uncovered(wanted).length === 0) return Promise.resolve();
    return new Promise((resolve) => this.coverWaiters.push({ wanted, resolve }));
  }

  count(key: string): number {
    return this.seen.filter((seen) => seen === key).length;
  }

  /** Resolves once `key` has arrived `count` times in all. */
  waitFor(key: string, count = 1): Promise<void> {
    if (this.count(key) >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ key, count, resolve }));
  }

  /**
   * Published changes among `wanted` that neither arrived nor were covered by the same notification arriving after them,
   * counting only the first `arrivals` arrivals (all of them by default).
   */
  uncovered(wanted: readonly string[], arrivals = this.seen.length): string[] {
    return published.filter(
      (key, index) => wanted.includes(key) && !this.seen.some((seen, arrival) => arrival < arrivals && seen === key && this.at[arrival]! > index),
    );
  }

  private reconnectWaiters: Array<() => void> = [];

  /** Resolves once the subscriber got `reconnected` (already or later). */
  reconnected(): Promise<void> {
    if (this.reconnects.length > 0) return Promise.resolve();
    return new Promise((resolve) => this.reconnectWaiters.push(resolve));
  }

  subscriber = (message: SubscriberMessage): void => {
    if (message.type === 'notification') this.push(message.method, message.params);
    else if (message.type === 'reconnected') {
      this.reconnects.push(message);
      for (const resolve of this.reconnectWaiters.splice(0)) resolve();
    }
  };
}

/** An inbox fed by an official 2.x client's notification handlers. */
export function officialInbox(client: Client): Inbox {
  const inbox = new Inbox();
  for (const method of [TOOLS, PROMPTS, 'notifications/resources/list_changed', UPDATED]) {
    client.setNotificationHandler(method as typeof TOOLS, (notification: { params?: unknown }) => inbox.push(method, notification.params));
  }
  return inbox;
}
