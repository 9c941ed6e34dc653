/**
 * What a subscriber receives, whatever it is (callback, async iterator or
 * xstate actor), for a modern stream or a legacy listener alike.
 */
import type { ClosedReason } from '../../machines/closed-reason.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';

/** Identifies one stream or listener to its subscriber. */
export interface SubscriptionRef {
  /** A modern listen stream or a legacy listener. */
  readonly kind: 'stream' | 'listener';
  /** The stream's subscription id, or the listener's id. */
  readonly id: string | number;
}

/** Modern era: what the subscriber needs to reconcile after a restart. */
export interface ResyncSnapshot {
  /** The tool list, fetched again when the filter asks for tool changes. */
  tools?: JsonObject[];
  /** The prompt list, fetched again when the filter asks for prompt changes. */
  prompts?: JsonObject[];
  /** The resource list, fetched again when the filter asks for resource-list changes. */
  resources?: JsonObject[];
  /** `resources/read` results by URI; an Error where the read failed. */
  contents?: Record<string, JsonObject | Error>;
}

/** Legacy era: which URIs were subscribed again after a reconnect. */
export interface ResubscribeReport {
  /** URIs subscribed again. */
  resubscribed: string[];
  /** URIs whose `resources/subscribe` failed, with why. */
  failed: { uri: string; reason: unknown }[];
}

/** What a subscriber receives: a notification, a resync after a reconnect (modern snapshot, legacy report), and finally `closed` with the reason. */
export type SubscriberMessage =
  | { type: 'notification'; ref: SubscriptionRef; method: string; params: JsonObject }
  | { type: 'reconnected'; ref: SubscriptionRef; snapshot: ResyncSnapshot }
  | { type: 'reconnected'; ref: SubscriptionRef; report: ResubscribeReport }
  | { type: 'closed'; ref: SubscriptionRef; reason: ClosedReason };
