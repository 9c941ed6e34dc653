/**
 * What a subscriber receives, whatever it is (callback, async iterator or
 * xstate actor), for a modern stream or a legacy listener alike.
 */
import type { ClosedReason } from '../../machines/closed-reason.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';

/** Identifies one stream or listener to its subscriber. */
export interface SubscriptionRef {
  readonly kind: 'stream' | 'listener';
  readonly id: string | number;
}

/** Modern era: what the subscriber needs to reconcile after a restart. */
export interface ResyncSnapshot {
  tools?: JsonObject[];
  prompts?: JsonObject[];
  resources?: JsonObject[];
  /** `resources/read` results by URI; an Error where the read failed. */
  contents?: Record<string, JsonObject | Error>;
}

/** Legacy era: which URIs were subscribed again after a reconnect. */
export interface ResubscribeReport {
  resubscribed: string[];
  failed: { uri: string; reason: unknown }[];
}

export type SubscriberMessage =
  | { type: 'notification'; ref: SubscriptionRef; method: string; params: JsonObject }
  | { type: 'reconnected'; ref: SubscriptionRef; snapshot: ResyncSnapshot }
  | { type: 'reconnected'; ref: SubscriptionRef; report: ResubscribeReport }
  | { type: 'closed'; ref: SubscriptionRef; reason: ClosedReason };
