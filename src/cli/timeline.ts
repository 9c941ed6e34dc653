/**
 * What the watcher reports, one event per line of output. The human renderer
 * and the NDJSON renderer print the same events; tests read the NDJSON.
 */
import type { ConnectionClosedReason } from '../../machines/closed-reason.ts';
import type { CacheState } from '../cache/types.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { NotificationFilter } from '../protocol/filter.ts';
import type { Era } from '../protocol/versions.ts';
import type { SerializedError } from './error-report.ts';
import type { ListDiff } from './list-diff.ts';

export { describeCause } from './error-report.ts';

/** The change notifications a server says it sends. */
export interface AdvertisedChanges {
  toolsListChanged: boolean;
  promptsListChanged: boolean;
  resourcesListChanged: boolean;
  resourceSubscribe: boolean;
}

export interface ServerIdentity {
  name?: string;
  version?: string;
}

/** The name and version from a negotiation's serverInfo, when they are strings. */
export function serverIdentity(info: Record<string, unknown> | undefined): ServerIdentity {
  return {
    ...(typeof info?.name === 'string' ? { name: info.name } : {}),
    ...(typeof info?.version === 'string' ? { version: info.version } : {}),
  };
}

export type TimelineEvent =
  /** A stdio server process was started (once per connection attempt). */
  | { type: 'spawned'; pid: number; command: string }
  | { type: 'inspector'; url: string; feed: string; stately: string; statelySocket: string; loopback: boolean }
  | {
      type: 'connected';
      era: Era;
      protocolVersion: string;
      server: ServerIdentity;
      changes: AdvertisedChanges;
      /** What the watcher asked for. */
      interest: { tools: boolean; prompts: boolean; resources: boolean; uris: string[] };
      /** What it listens for: the interest intersected with the advertised changes. */
      filter: NotificationFilter | null;
    }
  /** The first fetch of a list. */
  | { type: 'list'; list: ListDiff['list']; items: string[] }
  | { type: 'notification'; method: string; params: JsonObject }
  | ({ type: 'list_diff' } & ListDiff)
  | { type: 'resource_updated'; uri: string; text: string | undefined }
  | { type: 'refetch_failed'; key: string; error: string }
  /** `cause` is one line (the innermost system error); `error` the whole chain, for --json. */
  | { type: 'lost'; cause: string; error?: SerializedError }
  /**
   * `maxAttempts` only when bounded (--max-attempts); `quickReadies`, the connections before this attempt that
   * ended soon after they were ready (a server that crashes after each start); the delay is the wait before it.
   */
  | { type: 'reconnecting'; attempt: number; maxAttempts?: number; quickReadies: number; delayMs: number; cause: string; error?: SerializedError }
  | { type: 'reconnected'; era: Era; protocolVersion: string; server: ServerIdentity; generation: number }
  | { type: 'era_changed'; from: Era; to: Era }
  /**
   * A cache transition, by the cache machine's own state names (the diagram's); `resumed`: a listening
   * that picked up again after an earlier stream (a reconnect, a completed stream), so the lists were refetched.
   */
  | { type: 'cache'; state: CacheState; previous: CacheState; resumed: boolean; detail?: string }
  /** The connection's closed reason; `interrupted`: stopped (Ctrl-C, SIGTERM) before the first connection was up. */
  | { type: 'closed'; reason: ConnectionClosedReason['type'] | 'interrupted'; detail?: string; error?: SerializedError }
  /** The first reads are done and nothing else is pending: what to expect next. */
  | { type: 'idle'; hint: string }
  /** The watch could not start or went wrong: the same error stderr shows on one line (printed with --json only). */
  | { type: 'error'; error: SerializedError };

/** Where one rendered event goes. */
export type Renderer = (event: TimelineEvent) => void;
