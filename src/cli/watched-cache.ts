/**
 * The change cache the watcher reads, with its feed into the timeline. A
 * cache whose stream the server ended gracefully is `completed` for good
 * (the server said it was done, typically while shutting down); a watcher
 * should not go silent because the server restarted, so after the next
 * reconnect it starts over with a fresh cache on the new server.
 */
import { createChangeCache, type ChangeCacheHandle } from '../cache/change-cache.ts';
import type { Interest } from '../cache/interest.ts';
import type { McpClient } from '../client/client.ts';
import { CacheFeed } from './cache-feed.ts';
import { interestKeys } from './interest-choice.ts';
import type { Renderer } from './timeline.ts';

export class WatchedCache {
  #cache!: ChangeCacheHandle;
  #feed!: CacheFeed;
  #completed = false;
  #closed = false;
  #reopening: Promise<void> = Promise.resolve();

  constructor(private readonly client: McpClient, private readonly interest: Interest, private readonly render: Renderer) {
    this.#open();
  }

  /** A reconnect happened: a completed cache starts over. */
  reconnected(): void {
    if (!this.#completed || this.#closed) return;
    this.#completed = false;
    this.#reopening = this.#reopen();
  }

  /** The connection ended for good: reads in flight will fail, which the close already explains. */
  connectionClosed(): void {
    this.#feed.connectionClosed();
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#reopening;
    await this.#feed.stop();
    await this.#cache.close();
  }

  #open(): void {
    this.#cache = createChangeCache(this.client, { interest: this.interest });
    this.#cache.subscribe((event) => {
      if (event.type === 'state' && event.state === 'completed') this.#completed = true;
    });
    this.#feed = new CacheFeed(this.#cache, this.render, interestKeys(this.interest));
    void this.#feed.start();
  }

  async #reopen(): Promise<void> {
    await this.#feed.stop();
    await this.#cache.close();
    if (!this.#closed) this.#open();
  }
}
