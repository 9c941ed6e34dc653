/**
 * JSON-RPC 2.0 message shapes and the classifier that turns an untrusted
 * parsed frame into one of them, or into a typed FrameError. Every inbound
 * frame passes through `classifyFrame` before anything acts on it.
 *
 * Classifying never throws and never recurses on input: a frame nested
 * deeper than MAX_FRAME_DEPTH is refused (`too_deep`) before anything walks
 * it, so what comes after (JSON.stringify, structuredClone, a subscriber's
 * own walk) meets only values that cannot exhaust the stack.
 */
import { McpActorsError } from '../../machines/errors.ts';
import type { RequestId } from '../../machines/request-id.ts';
import { nestsDeeperThan, previewJson } from './bounded-json.ts';

export type { RequestId } from '../../machines/request-id.ts';

/** A JSON object as it comes off the wire: keys known, values not yet checked. */
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
  /** A documented limit was reached (ours, from the implementation-defined server error range). */
  LimitExceeded: -32000,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

/** Why a frame was refused: not JSON, not an object, not JSON-RPC 2.0, not a message's shape, too large, or nested too deep. */
export type FrameProblem =
  | 'unparseable'
  | 'not_an_object'
  | 'wrong_version'
  | 'wrong_shape'
  | 'oversized'
  | 'too_deep';

/**
 * Documented maximum nesting of arrays and objects in one frame (the message
 * object is level 1). Far beyond any real message, far below where
 * JSON.stringify and structuredClone give out (about 3,300 levels on Node 20).
 */
export const MAX_FRAME_DEPTH = 512;

/** How many characters of a refused frame its FrameError keeps. */
const PREVIEW_CHARS = 200;

/** Why an inbound frame was refused. The connection keeps running after one. */
export class FrameError extends McpActorsError {
  override readonly name = 'FrameError';
  readonly code = 'frame_error';
  constructor(
    /** Why the frame was refused. */
    readonly problem: FrameProblem,
    message: string,
    /** The start of the refused frame, for the log. */
    readonly frame?: string,
    options?: { cause?: unknown; requestId?: RequestId; responseId?: RequestId },
  ) {
    super(message, options);
    if (options?.requestId !== undefined) this.requestId = options.requestId;
    if (options?.responseId !== undefined) this.responseId = options.responseId;
  }

  /** The id of a request refused for what it holds (its params, its depth), when it could be read: its error response names it. */
  readonly requestId?: RequestId;
  /** The id of the response an `oversized` frame was, when its first or last bytes name it: that request fails with this error. */
  readonly responseId?: RequestId;
}

const ID_VALUE = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** `{"id":…` or `{"jsonrpc":"2.0","id":…` at the start of a frame. */
const ID_FIRST = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*` + ID_VALUE);
/** `,"id":…}` or `,"id":…,"jsonrpc":"2.0"}` at the end: the closing brace is the frame's own, so the key is top-level. */
const ID_LAST = new RegExp(String.raw`,\s*"id"\s*:\s*` + ID_VALUE + String.raw`\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$`);

/**
 * The id a frame too large to parse names at either end, as a response does (our server writes it first, the
 * official SDKs last); undefined when neither end shows one.
 */
export function idAtEnds(head: string, tail: string): RequestId | undefined {
  const match = ID_FIRST.exec(head) ?? ID_LAST.exec(tail);
  if (!match) return undefined;
  try {
    const id = JSON.parse(match[1]!) as unknown;
    return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : undefined;
  } catch {
    return undefined;
  }
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

const refuse = (problem: FrameProblem, message: string, value: unknown, text: string | undefined, requestId?: RequestId): ClassifiedFrame => ({
  kind: 'invalid',
  error: new FrameError(problem, message, preview(value, text), requestId === undefined ? undefined : { requestId }),
});

/**
 * The id of a request refused for what it holds (its params, its depth), read from its top level only, so that its
 * refusal names it and its asker does not wait out a timeout. A response refused the same way resolves nothing: the
 * request it names still takes its own answer if one comes.
 */
function requestIdOf(value: unknown): RequestId | undefined {
  return isObject(value) && value.jsonrpc === '2.0' && typeof value.method === 'string' && isId(value.id) ? value.id : undefined;
}

/**
 * A short, printable excerpt of a refused frame for error reports: the text
 * it arrived as when there is one, else an excerpt of the value that reads
 * no more of it than it shows (never a full JSON.stringify of a deep value).
 */
export function preview(value: unknown, text?: string): string {
  const source = text ?? (typeof value === 'string' ? value : undefined);
  if (source !== undefined) return source.length > PREVIEW_CHARS ? `${source.slice(0, PREVIEW_CHARS)}…` : source;
  return previewJson(value, PREVIEW_CHARS);
}

/**
 * Classifies one parsed JSON value as a JSON-RPC message without trusting
 * it. `text`, the frame as it arrived, when the caller has it: error reports
 * quote it, and a frame too short to nest past MAX_FRAME_DEPTH is not walked.
 */
export function classifyFrame(value: unknown, text?: string): ClassifiedFrame {
  // Nesting past the limit takes two characters a level at least: shorter text cannot.
  if ((text === undefined || text.length > 2 * MAX_FRAME_DEPTH) && nestsDeeperThan(value, MAX_FRAME_DEPTH)) {
    return refuse('too_deep', `frame nests deeper than ${MAX_FRAME_DEPTH} levels`, value, text, requestIdOf(value));
  }
  if (!isObject(value)) return refuse('not_an_object', 'frame is not a JSON object', value, text);
  if (value.jsonrpc !== '2.0') return refuse('wrong_version', 'frame is not JSON-RPC 2.0', value, text);
  const { method, id, params } = value;
  if (params !== undefined && !isObject(params)) {
    return refuse('wrong_shape', 'params must be an object', value, text, requestIdOf(value));
  }
  if (typeof method === 'string') {
    if (id === undefined) return { kind: 'notification', message: value as unknown as JsonRpcNotification };
    if (isId(id)) return { kind: 'request', message: value as unknown as JsonRpcRequest };
    return refuse('wrong_shape', 'request id must be a string or a number', value, text);
  }
  if (method !== undefined) return refuse('wrong_shape', 'method must be a string', value, text);
  if ('result' in value) {
    if (!isId(id)) return refuse('wrong_shape', 'response id must be a string or a number', value, text);
    if (!isObject(value.result)) return refuse('wrong_shape', 'result must be an object', value, text);
    return { kind: 'response', message: value as unknown as JsonRpcSuccess };
  }
  if ('error' in value) {
    const error = value.error;
    if (!isObject(error) || typeof error.code !== 'number' || typeof error.message !== 'string') {
      return refuse('wrong_shape', 'error must have a numeric code and a string message', value, text);
    }
    if (id !== null && !isId(id)) return refuse('wrong_shape', 'response id must be a string, a number or null', value, text);
    return { kind: 'response', message: value as unknown as JsonRpcFailure };
  }
  return refuse('wrong_shape', 'frame is neither a request, a notification nor a response', value, text);
}

/** Parses one text frame (a stdio line, an SSE data field, a JSON body) and classifies it. */
export function parseFrame(text: string, maxBytes: number): ClassifiedFrame {
  const parsed = parseBounded(text, maxBytes);
  return 'value' in parsed ? classifyFrame(parsed.value, text) : parsed.refused;
}

/**
 * Parses what a client reads as one message (a stdio line, an SSE event, a JSON body) into its frames: a JSON-RPC
 * batch, an array of messages, is its elements, each classified on its own (an element that is itself an array is
 * `not_an_object`); an empty one is refused. Revision 2025-03-26 requires every implementation to receive batches,
 * and accepting them from any server costs nothing: each message is checked as if it came alone.
 */
export function parseFrames(text: string, maxBytes: number): ClassifiedFrame[] {
  const message = parseMessage(text, maxBytes);
  return message.kind === 'batch' ? message.frames : [message.frame];
}

/**
 * What parseFrames reads, telling a batch from a single message as a JSON-RPC server must answer them: a batch of
 * at least one element (each classified alone) is answered with an array; anything else, an unparseable text or an
 * empty batch included, is one frame, answered alone.
 */
export function parseMessage(text: string, maxBytes: number): { kind: 'single'; frame: ClassifiedFrame } | { kind: 'batch'; frames: ClassifiedFrame[] } {
  const parsed = parseBounded(text, maxBytes);
  if (!('value' in parsed)) return { kind: 'single', frame: parsed.refused };
  const { value } = parsed;
  if (!Array.isArray(value)) return { kind: 'single', frame: classifyFrame(value, text) };
  if (value.length === 0) return { kind: 'single', frame: refuse('wrong_shape', 'a batch must hold at least one message', value, text) };
  return { kind: 'batch', frames: value.map((element) => classifyFrame(element)) };
}

function parseBounded(text: string, maxBytes: number): { value: unknown } | { refused: ClassifiedFrame } {
  if (text.length > maxBytes) {
    return {
      refused: { kind: 'invalid', error: new FrameError('oversized', `frame of ${text.length} characters exceeds the ${maxBytes} limit`, preview(text)) },
    };
  }
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (cause) {
    return { refused: { kind: 'invalid', error: new FrameError('unparseable', 'frame is not valid JSON', preview(text), { cause }) } };
  }
}

export const isFailure = (response: JsonRpcResponse): response is JsonRpcFailure => 'error' in response;
