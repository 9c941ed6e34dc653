/**
 * The one change cache the watcher reads, with its feed into the timeline.
 * The cache decides its own lifecycle across reconnects (a stream the server
 * ended gracefully listens again after the next negotiation); the watcher
 * only follows it.
 */
import { createChangeCache, type ChangeCacheHandle } from '../cache/change-cache.ts';
import { interestKeys, type Interest } from '../cache/interest.ts';
import type { McpClient } from '../client/client.ts';
import { CacheFeed } from './cache-feed.ts';
import type { Renderer } from './timeline.ts';

export class WatchedCache {
  readonly #cache: ChangeCacheHandle;
  readonly #feed: CacheFeed;
  /** Settles once every watched entry has been read (and reported) once. */
  readonly firstReads: Promise<void>;

  constructor(client: McpClient, interest: Interest, render: Renderer) {
    this.#cache = createChangeCache(client, { interest });
    this.#feed = new CacheFeed(this.#cache, render, interestKeys(interest));
    this.firstReads = this.#feed.start();
  }

  /** The connection ended for good: reads in flight will fail, which the close already explains. */
  connectionClosed(): void {
    this.#feed.connectionClosed();
  }

  /** Stops reporting, then closes the cache, which fails the reads still waiting at once (not at their timeout). */
  async close(): Promise<void> {
    const readsSettled = this.#feed.stop();
    await this.#cache.close();
    await readsSettled;
  }
}
