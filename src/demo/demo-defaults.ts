/** The demo's timing defaults, apart from the server so the CLI can name them without loading it. */

/** Time between two changes (env MCP_ACTORS_DEMO_INTERVAL_MS, flag --interval-ms). */
export const DEFAULT_DEMO_INTERVAL_MS = 2_000;
/** How long the watcher lets the first demo process run before it crashes (env MCP_ACTORS_DEMO_RESTART_AFTER_MS; 0: never). */
export const DEFAULT_DEMO_RESTART_AFTER_MS = 9_000;
