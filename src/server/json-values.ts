/**
 * Small facts about JSON values that the routers and transports share.
 */
import type { JsonObject, RequestId } from '../protocol/jsonrpc.ts';

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A map key for a request id that keeps `1` and `"1"` apart. */
export const requestKey = (id: RequestId): string => `${typeof id}:${id}`;
