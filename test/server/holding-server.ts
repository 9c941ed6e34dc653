/**
 * Our fixture server with one more tool, `hold`, whose calls wait until their
 * signal aborts (a cancel, or the connection ending): for tests that need a
 * request still being answered while they do something else.
 */
import type { McpServer } from '../../src/server/index.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';

export interface HoldingServer {
  server: McpServer;
  /** Resolves at the first call of `hold`. */
  started: Promise<void>;
  /** Resolves when the first call of `hold` was aborted. */
  aborted: Promise<void>;
  /** Calls of `hold` so far. */
  calls(): number;
}

export function holdingServer(): HoldingServer {
  const server = buildFixtureServer();
  let calls = 0;
  let markStarted!: () => void;
  let markAborted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const aborted = new Promise<void>((resolve) => (markAborted = resolve));
  server.defineTool('hold', { description: 'Waits for its cancel', inputSchema: { type: 'object' } }, async (_args, context) => {
    calls++;
    markStarted();
    await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true }));
    markAborted();
    return { content: [] };
  });
  return { server, started, aborted, calls: () => calls };
}
