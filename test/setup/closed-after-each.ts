/**
 * The teardown most test files share: what a test opened (clients, servers,
 * caches, fixtures) is closed after it, so that the next test starts clean and
 * no child outlives the run (fixtures.setup.ts fails a run that leaks one).
 */
import { afterEach } from 'vitest';

/** Something a test opens and must end: by `close()` (clients, servers, caches, transports) or `stop()` (fixtures). */
export type Closable = { close(): unknown } | { stop(): unknown };

const end = (thing: Closable): unknown => ('close' in thing ? thing.close() : thing.stop());

/**
 * Registers an `afterEach` that ends what the file's tests pushed into `lists`: list after list in the order given
 * (a cache before its client, a client before its server), the things in one list all at once, each list emptied
 * for the next test. Returns `lists` itself, for the tests to push into.
 *
 *   const { clients, servers } = closedAfterEach({ clients: [] as McpClient[], servers: [] as McpServer[] });
 */
export function closedAfterEach<const T extends Record<string, Closable[]>>(lists: T): T {
  afterEach(async () => {
    for (const list of Object.values(lists)) await Promise.all(list.splice(0).map(end));
  });
  return lists;
}
