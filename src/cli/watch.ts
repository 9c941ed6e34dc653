/**
 * `mcp-actors watch`: connect, say what was negotiated, open a change cache
 * for the selected interest and turn everything that happens into timeline
 * events until Ctrl-C (exit 0) or the connection ends on its own (exit 1);
 * a lost connection is retried with the connection's backoff (forever unless
 * --max-attempts bounds it). With --once it reports the first reads and exits 0.
 * A first connection that fails is a WatchConnectError: one line, exit 1.
 */
import { computeFilter } from '../cache/interest.ts';
import { createClient, type ClientEvent, type McpClient } from '../client/client.ts';
import { McpActorsError } from '../protocol/errors.ts';
import type { ServerCapabilities } from '../protocol/versions.ts';
import type { ServerTarget, WatchCommand } from './args.ts';
import type { RunningInspector } from './inspect.ts';
import { advertisedChanges, chooseInterest } from './interest-choice.ts';
import { transportFor } from './target.ts';
import { describeCause, serializeError } from './error-report.ts';
import { serverIdentity, type Renderer } from './timeline.ts';
import { WatchedCache } from './watched-cache.ts';

export class WatchConnectError extends McpActorsError {
  override readonly name = 'WatchConnectError';
  readonly code = 'watch_connect';
}

export interface Watch {
  /** Resolves with the exit code once the watch is over; rejects with a WatchConnectError when the server cannot be watched. */
  readonly done: Promise<number>;
  /**
   * Closes whatever is open at the time (Ctrl-C): a connect or a read still waiting is cut short, a stdio server is
   * stopped, and `done` resolves 0. Works from the moment the watch starts; rejects only if closing went wrong.
   */
  stop(): Promise<void>;
}

/**
 * Watches one server (`target`: the command's own, or one server of its --config) with the command's options. The
 * handle comes back at once, before anything is started, so that a Ctrl-C during a long connect has something to stop.
 */
export function startWatch(command: WatchCommand, target: ServerTarget, render: Renderer): Watch {
  let inspector: RunningInspector | undefined;
  let client: McpClient | undefined;
  let cache: WatchedCache | undefined;
  let connected = false;
  let stopping = false;
  let markCloseReported: () => void = () => {};
  const closeReported = new Promise<void>((resolve) => (markCloseReported = resolve));
  let finish: (code: number) => void = () => {};
  const ended = new Promise<number>((resolve) => (finish = resolve));

  let closing: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping = true;
    closing ??= (async () => {
      try {
        // The cache first: reads still waiting on the server fail now instead of at their timeout.
        await cache?.close();
        await client?.close();
        if (connected) await closeReported;
      } finally {
        // Ctrl-C means "stop now": a close that went wrong is still an exit the operator asked for.
        await inspector?.stop();
        finish(0);
      }
    })();
    return closing;
  };

  const run = async (): Promise<number> => {
    if (command.inspect) {
      // The inspector's server, pages and relay are loaded only when asked for.
      const { startInspector } = await import('./inspect.ts');
      if (stopping) return ended;
      const started = await startInspector(command.inspect);
      // Started while stop() ran, which could not see it.
      if (stopping) return started.stop().then(() => ended);
      inspector = started;
      const { url, feed, stately, statelySocket, loopback } = inspector;
      render({ type: 'inspector', url, feed, stately, statelySocket, loopback });
    }
    const transport = await transportFor(target, (pid, label) => render({ type: 'spawned', pid, command: label }));
    if (stopping) return ended;
    const watched = (client = createClient({
      transport: transport.transport,
      era: command.era,
      clientInfo: { name: 'mcp-actors-watch', version: '0.1.0' },
      // The connection machine's own backoff, configured: a person keeps the watcher open through an outage.
      reconnect: { maxAttempts: command.maxAttempts },
      // An HTTP server that is not up yet (started after the watcher, mid-deploy) is waited for the same way; a command the
      // watcher starts itself that fails will fail again, and --once is a one-shot look, so those fail at once.
      firstConnect: target.type === 'http' && !command.once ? 'retry' : 'fail',
      ...(inspector ? { inspect: inspector.inspect } : {}),
    }));

    watched.on('*', (event) => {
      if (event.type === 'connection.closed') {
        // Before the first negotiation a close is the failed (or interrupted) connect, reported as such.
        if (!connected) return markCloseReported();
        // Reads still waiting can only fail now: the close says why.
        cache?.connectionClosed();
        const reason = event.reason;
        // After the cache has reported what the close did to it (degraded), so the close is the last line.
        setImmediate(() => {
          render({
            type: 'closed',
            reason: reason.type,
            ...('cause' in reason ? { detail: describeCause(reason.cause), error: serializeError(reason.cause) } : {}),
          });
          markCloseReported();
          // After stop() the watch ends when stop() has closed everything, not at the close event.
          if (!stopping) {
            void cache?.close();
            void inspector?.stop();
            finish(1);
          }
        });
      } else {
        reportConnectionEvent(event, render, command.maxAttempts);
      }
    });

    try {
      await watched.connect();
    } catch (cause) {
      if (stopping) {
        render({ type: 'closed', reason: 'interrupted' });
        return ended;
      }
      await inspector?.stop();
      await watched.close().catch(() => {});
      throw new WatchConnectError(`cannot watch ${transport.label}: ${describeCause(cause)}`, { cause });
    }

    connected = true;
    const capabilities = (watched.serverCapabilities ?? {}) as ServerCapabilities;
    const interest = await chooseInterest(command.selection, watched, capabilities);
    // Closed while the resources were listed: the close is already reported.
    if (stopping) return ended;
    const filter = computeFilter(interest, capabilities);
    render({
      type: 'connected',
      era: watched.era!,
      protocolVersion: watched.protocolVersion ?? 'unknown',
      server: serverIdentity(watched.serverInfo),
      changes: advertisedChanges(capabilities),
      interest: { tools: interest.tools === true, prompts: interest.prompts === true, resources: interest.resources === true, uris: interest.uris ?? [] },
      filter,
    });

    const feed = (cache = new WatchedCache(watched, interest, render));
    if (command.once) {
      // What the server offers, read once: the first reads, then a clean close.
      await feed.firstReads;
      await stop();
      return ended;
    }
    void feed.firstReads.then(() => {
      if (!stopping) render({ type: 'idle', hint: idleHint(filter !== null) });
    });
    return ended;
  };

  return { done: run(), stop };
}

/** Why a quiet timeline is normal: many servers change only when a client (not this watcher) calls their tools. */
function idleHint(listening: boolean): string {
  return listening
    ? 'waiting for changes; many servers change only when a client calls their tools or edits their data, so nothing shows until then'
    : 'the server advertises no change notifications for what is watched; nothing more will show until the connection changes';
}

function reportConnectionEvent(event: ClientEvent, render: Renderer, maxAttempts: number): void {
  switch (event.type) {
    case 'connection.lost':
      render({ type: 'lost', cause: describeCause(event.cause), error: serializeError(event.cause) });
      return;
    case 'connection.reconnecting':
      render({
        type: 'reconnecting',
        attempt: event.attempt,
        ...(Number.isFinite(maxAttempts) ? { maxAttempts } : {}),
        quickReadies: event.quickReadies,
        delayMs: event.delayMs,
        cause: describeCause(event.cause),
        error: serializeError(event.cause),
      });
      return;
    case 'connection.ready':
      // The first negotiation is reported with the server's details once connect() resolves.
      if (event.generation > 1) {
        render({
          type: 'reconnected',
          era: event.era,
          protocolVersion: event.negotiated.protocolVersion,
          server: serverIdentity(event.negotiated.serverInfo),
          generation: event.generation,
        });
      }
      return;
    case 'connection.era_changed':
      render({ type: 'era_changed', from: event.from, to: event.to });
      return;
    default:
      // connection.failed surfaces through connect() or the next reconnecting event; errors are not lifecycle.
      return;
  }
}
