/**
 * `watch --inspect`: a local @statelyai/inspect server (WebSocket plus a page
 * that embeds the Stately inspector) and a WebSocket inspector connected to
 * it, whose `inspect` observer is handed to createClient so every actor the
 * client makes (connection, subscriptions, listeners, URI worker, cache)
 * streams its snapshots and events there.
 */
import { createServer } from 'node:net';
import type { Inspect } from '../client/ports.ts';
import { McpActorsError } from '../protocol/errors.ts';

export class InspectorPortError extends McpActorsError {
  override readonly name = 'InspectorPortError';
  readonly code = 'inspector_port';
}

/** `--inspect` without @statelyai/inspect installed (an optional peer dependency of the package). */
export class InspectorUnavailableError extends McpActorsError {
  override readonly name = 'InspectorUnavailableError';
  readonly code = 'inspector_unavailable';
}

export interface RunningInspector {
  inspect: Inspect;
  /** The page to open in a browser. */
  url: string;
  /** Where a WebSocket receiver (`createWebSocketReceiver`) connects. */
  websocket: string;
  stop(): void;
}

export async function startInspector(port: number): Promise<RunningInspector> {
  // The inspector server cannot report a busy port to its caller (it throws from an event), so check first.
  await assertPortFree(port);
  const { createWebSocketInspector, createInspectorServer } = await loadInspect();
  const server = createInspectorServer({ port, autoOpen: false });
  const websocket = `ws://localhost:${port}`;
  const inspector = createWebSocketInspector({ url: websocket });
  return {
    inspect: inspector.inspect,
    url: `http://localhost:${port}`,
    websocket,
    stop() {
      inspector.stop();
      server.stop();
    },
  };
}

/** Loaded only here, so a watch without --inspect (and every service using the library) never loads it. */
async function loadInspect() {
  try {
    const [{ createWebSocketInspector }, { createInspectorServer }] = await Promise.all([
      import('@statelyai/inspect'),
      import('@statelyai/inspect/server'),
    ]);
    return { createWebSocketInspector, createInspectorServer };
  } catch (error) {
    // Only the package itself missing; a broken install of it (one of its own dependencies gone) keeps its own error.
    const missing = (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes("'@statelyai/inspect'");
    if (!missing) throw error;
    throw new InspectorUnavailableError('--inspect needs @statelyai/inspect beside mcp-actors: npm install @statelyai/inspect', { cause: error });
  }
}

function assertPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(new InspectorPortError(`inspector port ${port} is not available (${error.code ?? error.message}); pick another with --inspect-port`)),
    );
    probe.listen(port, () => probe.close(() => resolve()));
  });
}
