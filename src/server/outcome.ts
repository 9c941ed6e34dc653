/** What answering one request came to, for the transport to write. */
import type { NotificationFilter } from '../protocol/filter.ts';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.ts';
import type { WireError } from './errors.ts';

export type Outcome =
  | { kind: 'result'; result: JsonObject }
  | { kind: 'error'; error: WireError }
  /** A valid `subscriptions/listen`: the transport opens the stream with this honored filter. */
  | { kind: 'listen'; honored: NotificationFilter };

export const resultFrame = (id: RequestId, result: JsonObject): string => JSON.stringify({ jsonrpc: '2.0', id, result });

export const errorFrame = (id: RequestId | null, error: WireError): string =>
  JSON.stringify({ jsonrpc: '2.0', id, error: error.toJson() });
