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

/**
 * Starts a watch of every server; `renderFor` gives each its named renderer, `reportFailure` the one-line stderr report.
 * Like one watch, the handle comes back at once, so a Ctrl-C while the servers connect stops them all.
 */
export function startWatchSet(
  command: WatchCommand,
  servers: readonly NamedTarget[],
  renderFor: (name: string) => Renderer,
  reportFailure: (name: string, error: unknown) => void,
): Watch {
  let stopped = false;
  const watches = servers.map(({ name, target }) => {
    const render = renderFor(name);
    // An entry the config already rules out (an unsupported transport) fails like a server that cannot be reached.
    const watch: Watch = target.type === 'unsupported' ? { done: Promise.reject(target.error), stop: async () => {} } : startWatch(command, target, render);
    // A server that cannot be watched is reported under its name; the others go on.
    const outcome = watch.done.then(
      (code) => ({ started: true, code }),
      (error: unknown) => {
        render({ type: 'error', error: serializeError(error) });
        reportFailure(name, error);
        return { started: false, code: 1 };
      },
    );
    return { watch, outcome };
  });
  const done = Promise.all(watches.map(({ outcome }) => outcome)).then((outcomes) => {
    if (!stopped && outcomes.every(({ started }) => !started)) throw new WatchSetError(`none of the ${servers.length} server(s) of the config could be watched`);
    return !stopped && outcomes.some(({ code }) => code !== 0) ? 1 : 0;
  });
  return {
    done,
    async stop() {
      stopped = true;
      await Promise.all(watches.map(({ watch }) => watch.stop()));
    },
  };
}
