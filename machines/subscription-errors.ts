/**
 * The errors the subscription machine decides on its own (the others
 * are the server's errors, passed through). They live beside the machine
 * because machines may not import src/; src/client/subscription.ts
 * re-exports them. Same shape as src/protocol/errors.ts: fixed `name`,
 * stable `code`.
 */
import { McpActorsError } from './errors.ts';
import type { NotificationFilter } from './notification-filter.ts';
import type { RequestId } from './request-id.ts';

/** No `notifications/subscriptions/acknowledged` arrived within the ack timeout. */
export class ListenAckTimeoutError extends McpActorsError {
  override readonly name = 'ListenAckTimeoutError';
  readonly code = 'listen_ack_timeout';
  constructor(/** The stream's subscription id (the id of its `subscriptions/listen` request). */ readonly subscriptionId: RequestId, /** How long the acknowledgment was waited for. */ readonly timeoutMs: number) {
    super(`subscriptions/listen ${String(subscriptionId)} was not acknowledged within ${timeoutMs} ms`);
  }
}

/**
 * A stream whose server sends keep-alive comments heard nothing at all (no
 * comment, no notification) for a whole stall window: the path to the server
 * went silent without closing (a proxy or load balancer that lost the
 * connection, a hung node). The client drops that wire stream and listens
 * again under the same id, as after any stream the server ended unanswered.
 */
export class ListenStalledError extends McpActorsError {
  override readonly name = 'ListenStalledError';
  readonly code = 'listen_stalled';
  constructor(/** The stream's subscription id. */ readonly subscriptionId: RequestId, /** The stall window that went silent. */ readonly stallAfterMs: number) {
    super(`subscriptions/listen ${String(subscriptionId)} heard nothing for ${stallAfterMs} ms although its server sends keep-alives`);
  }
}

/** The server acknowledged more than the client asked for; the stream is cancelled. */
export class HonoredFilterTooBroadError extends McpActorsError {
  override readonly name = 'HonoredFilterTooBroadError';
  readonly code = 'honored_filter_too_broad';
  constructor(
    /** The stream's subscription id. */
    readonly subscriptionId: RequestId,
    /** The filter the client asked for. */
    readonly requested: NotificationFilter,
    /** The filter the server acknowledged, which names more than was asked. */
    readonly honored: NotificationFilter,
  ) {
    super(`subscriptions/listen ${String(subscriptionId)} was acknowledged with a filter broader than requested`);
  }
}

/**
 * A second `notifications/subscriptions/acknowledged` for a stream already
 * acknowledged that is malformed (`cause`: the FilterError) or honors more
 * than the first one did: a protocol violation, and the client ends the stream.
 */
export class AcknowledgmentViolationError extends McpActorsError {
  override readonly name = 'AcknowledgmentViolationError';
  readonly code = 'acknowledgment_violation';
  constructor(
    /** The stream's subscription id. */
    readonly subscriptionId: RequestId,
    /** `malformed`: the second acknowledgment could not be read; `broader_than_honored`: it named more than the first. */
    readonly problem: 'malformed' | 'broader_than_honored',
    /** The filter the first acknowledgment honored. */
    readonly honored: NotificationFilter,
    /** What the second acknowledgment honored, when it could be read. */
    readonly acknowledged: NotificationFilter | undefined,
    options?: { cause?: unknown },
  ) {
    super(
      problem === 'malformed'
        ? `subscriptions/listen ${String(subscriptionId)} was acknowledged again with a malformed filter`
        : `subscriptions/listen ${String(subscriptionId)} was acknowledged again with a filter broader than the one it honored`,
      options,
    );
  }
}

/**
 * The resync snapshot could not be fetched because the connection dropped
 * meanwhile: not a refusal, the stream waits for the next `connection.ready`.
 */
export class ResyncInterruptedError extends McpActorsError {
  override readonly name = 'ResyncInterruptedError';
  readonly code = 'resync_interrupted';
  constructor(options?: { cause?: unknown }) {
    super('the resync snapshot was interrupted by a connection loss', options);
  }
}
