/**
 * JSON-RPC 2.0 message shapes and the classifier that turns an untrusted
 * parsed frame into one of them, or into a typed FrameError. Every inbound
 * frame passes through `classifyFrame` before anything acts on it.
 */

export type RequestId = string | number;

export type JsonObject = { [key: string]: unknown };

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: JsonObject;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: JsonObject;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcSuccess {
  jsonrpc: '2.0';
  id: RequestId;
  result: JsonObject;
}

export interface JsonRpcFailure {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** Standard and MCP error codes used on the wire. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

export type FrameProblem =
  | 'unparseable'
  | 'not_an_object'
  | 'wrong_version'
  | 'wrong_shape'
  | 'oversized';

/** Why an inbound frame was refused. The connection keeps running after one. */
export class FrameError extends Error {
  override readonly name = 'FrameError';
  readonly code = 'frame_error';
  constructor(
    readonly problem: FrameProblem,
    message: string,
    readonly frame?: string,
    options?: { cause?: unknown; requestId?: RequestId },
  ) {
    super(message, options);
    if (options?.requestId !== undefined) this.requestId = options.requestId;
  }

  /** The id of a request refused for its shape, when it could be read: its error response names it. */
  readonly requestId?: RequestId;
}

export type ClassifiedFrame =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse }
  | { kind: 'invalid'; error: FrameError };

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isId = (value: unknown): value is RequestId =>
  typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

const invalid = (problem: FrameProblem, message: string, value: unknown, requestId?: RequestId): ClassifiedFrame => ({
  kind: 'invalid',
  error: new FrameError(problem, message, preview(value), requestId === undefined ? undefined : { requestId }),
});

/** A short, printable excerpt of a refused frame for error reports. */
export function preview(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Classifies one parsed JSON value as a JSON-RPC message without trusting it. */
export function classifyFrame(value: unknown): ClassifiedFrame {
  if (!isObject(value)) return invalid('not_an_object', 'frame is not a JSON object', value);
  if (value.jsonrpc !== '2.0') return invalid('wrong_version', 'frame is not JSON-RPC 2.0', value);
  const { method, id, params } = value;
  if (params !== undefined && !isObject(params)) {
    return invalid('wrong_shape', 'params must be an object', value, typeof method === 'string' && isId(id) ? id : undefined);
  }
  if (typeof method === 'string') {
    if (id === undefined) return { kind: 'notification', message: value as unknown as JsonRpcNotification };
    if (isId(id)) return { kind: 'request', message: value as unknown as JsonRpcRequest };
    return invalid('wrong_shape', 'request id must be a string or a number', value);
  }
  if (method !== undefined) return invalid('wrong_shape', 'method must be a string', value);
  if ('result' in value) {
    if (!isId(id)) return invalid('wrong_shape', 'response id must be a string or a number', value);
    if (!isObject(value.result)) return invalid('wrong_shape', 'result must be an object', value);
    return { kind: 'response', message: value as unknown as JsonRpcSuccess };
  }
  if ('error' in value) {
    const error = value.error;
    if (!isObject(error) || typeof error.code !== 'number' || typeof error.message !== 'string') {
      return invalid('wrong_shape', 'error must have a numeric code and a string message', value);
    }
    if (id !== null && !isId(id)) return invalid('wrong_shape', 'response id must be a string, a number or null', value);
    return { kind: 'response', message: value as unknown as JsonRpcFailure };
  }
  return invalid('wrong_shape', 'frame is neither a request, a notification nor a response', value);
}

/** Parses one text frame (a stdio line, an SSE data field, a JSON body) and classifies it. */
export function parseFrame(text: string, maxBytes: number): ClassifiedFrame {
  if (text.length > maxBytes) {
    return {
      kind: 'invalid',
      error: new FrameError('oversized', `frame of ${text.length} characters exceeds the ${maxBytes} limit`, preview(text)),
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    return { kind: 'invalid', error: new FrameError('unparseable', 'frame is not valid JSON', preview(text), { cause }) };
  }
  return classifyFrame(value);
}

export const isFailure = (response: JsonRpcResponse): response is JsonRpcFailure => 'error' in response;
