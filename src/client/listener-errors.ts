/**
 * The typed failures of legacy-era notification listeners, one class per
 * condition (see src/protocol/errors.ts for the shared base).
 */
import type { ClosedReason } from '../../machines/closed-reason.ts';
import { McpActorsError } from '../protocol/errors.ts';

/** A `resources/subscribe` failed, so the whole registration failed and was rolled back. */
export class SubscribeFailedError extends McpActorsError {
  override readonly name = 'SubscribeFailedError';
  readonly code = 'subscribe_failed';
  constructor(/** The URI whose `resources/subscribe` failed (the failure is the `cause`). */ readonly uri: string, cause: unknown) {
    super(`resources/subscribe failed for ${uri}`, { cause });
  }
}

/** `unsubscribeNotifications` was given a reference this client does not (or no longer) know. */
export class ListenerNotFoundError extends McpActorsError {
  override readonly name = 'ListenerNotFoundError';
  readonly code = 'listener_not_found';
  constructor(/** The listener id that matched none. */ readonly id: string | number) {
    super(`no notification listener ${String(id)} on this client`);
  }
}

/** A registration ended before it completed: the connection closed or changed era, or the subscriber went away. */
export class ListenerClosedError extends McpActorsError {
  override readonly name = 'ListenerClosedError';
  readonly code = 'listener_closed';
  constructor(/** Why the listener closed. */ readonly reason: ClosedReason) {
    super(`the notification listener closed before it was registered (${reason.type})`);
  }
}
