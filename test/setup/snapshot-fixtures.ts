/**
 * The fixtures that start from the official-server V8 snapshot (official-server-snapshot.ts), by the file name of
 * their bundle. Kept apart from the snapshot's entry, which only a snapshot build may evaluate, and from
 * fixture-bundle.ts, which the entry must not take into its bundle.
 */
export const SNAPSHOT_FIXTURES: readonly string[] = ['official-stdio-server.mjs', 'official-changing-server.mjs'];
