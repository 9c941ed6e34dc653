/**
 * The snapshot a reopened stream hands its subscriber: fresh lists for the
 * honored list types and a fresh read of each honored URI, so it can
 * reconcile whatever it missed while the connection was down.
 */
import { asError } from '../../machines/errors.ts';
import { ResyncInterruptedError } from '../../machines/subscription-errors.ts';
import { ConnectionLostError, NotConnectedError } from '../protocol/errors.ts';
import type { NotificationFilter } from '../protocol/filter.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { ResyncSnapshot } from './messages.ts';
import { collectPages } from './pages.ts';
import type { RequestPort } from './ports.ts';

/** A failure caused by the connection going away is an interruption, not an answer. */
const interrupted = (error: unknown): boolean => error instanceof NotConnectedError || error instanceof ConnectionLostError;

async function readAll(port: RequestPort, uris: string[], signal: AbortSignal): Promise<Record<string, JsonObject | Error>> {
  const contents: Record<string, JsonObject | Error> = {};
  await Promise.all(
    uris.map(async (uri) => {
      try {
        contents[uri] = await port.request('resources/read', { uri }, { signal });
      } catch (error) {
        if (interrupted(error)) throw error;
        // One unreadable resource does not spoil the rest of the snapshot.
        contents[uri] = asError(error);
      }
    }),
  );
  return contents;
}

/**
 * Fetches the snapshot for `honored`. Rejects with ResyncInterruptedError if
 * the connection dropped meanwhile, or with the server's error if a list failed.
 */
export async function fetchResyncSnapshot(port: RequestPort, honored: NotificationFilter, signal: AbortSignal): Promise<ResyncSnapshot> {
  try {
    const [tools, prompts, resources, contents] = await Promise.all([
      honored.toolsListChanged ? collectPages('tools', (method, params) => port.request(method, params, { signal })) : undefined,
      honored.promptsListChanged ? collectPages('prompts', (method, params) => port.request(method, params, { signal })) : undefined,
      honored.resourcesListChanged ? collectPages('resources', (method, params) => port.request(method, params, { signal })) : undefined,
      honored.resourceSubscriptions?.length ? readAll(port, honored.resourceSubscriptions, signal) : undefined,
    ]);
    const snapshot: ResyncSnapshot = {};
    if (tools) snapshot.tools = tools;
    if (prompts) snapshot.prompts = prompts;
    if (resources) snapshot.resources = resources;
    if (contents) snapshot.contents = contents;
    return snapshot;
  } catch (error) {
    throw interrupted(error) ? new ResyncInterruptedError({ cause: error }) : error;
  }
}
