/**
 * A JSON-RPC request id. A modern listen stream's subscription id is the id
 * of its `subscriptions/listen` request, so the machines, their errors and
 * src/protocol share this one type (machines may not import src/).
 */
export type RequestId = string | number;
