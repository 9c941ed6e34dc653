/**
 * `watch --config FILE`: one watch per server of the config, side by side in
 * one timeline (each server's lines carry its name). A server that cannot be
 * watched is reported under its name and the others go on; the set ends when
 * every watch has ended, with 0 after Ctrl-C (or --once when every server
 * answered) and 1 when any server could not be watched or its connection ended.
 */
import { McpActorsError } from '../protocol/errors.ts';
import type { WatchCommand } from './args.ts';
import { serializeError } from './error-report.ts';
import type { NamedTarget } from './host-config.ts';
import type { Renderer } from './timeline.ts';
import { startWatch, type Watch } from './watch.ts';

/** Not one server of the config could be watched. */
export class WatchSetError extends McpActorsError {
  override readonly name = 'WatchSetError';
  readonly code = 'watch_set';
}

/** Starts a watch of every server; `renderFor` gives each its named renderer, `reportFailure` the one-line stderr report. */
export async function startWatchSet(
  command: WatchCommand,
  servers: readonly NamedTarget[],
  renderFor: (name: string) => Renderer,
  reportFailure: (name: string, error: unknown) => void,
): Promise<Watch> {
  let failedToStart = false;
  const started = await Promise.all(
    servers.map(async ({ name, target }) => {
      const render = renderFor(name);
      try {
        return await startWatch(command, target, render);
      } catch (error) {
        failedToStart = true;
        render({ type: 'error', error: serializeError(error) });
        reportFailure(name, error);
        return undefined;
      }
    }),
  );
  const watches = started.filter((watch): watch is Watch => watch !== undefined);
  if (watches.length === 0) throw new WatchSetError(`none of the ${servers.length} server(s) of the config could be watched`);
  let stopped = false;
  const done = Promise.all(watches.map((watch) => watch.done)).then((codes) =>
    !stopped && (failedToStart || codes.some((code) => code !== 0)) ? 1 : 0,
  );
  return {
    done,
    async stop() {
      stopped = true;
      await Promise.all(watches.map((watch) => watch.stop()));
    },
  };
}
