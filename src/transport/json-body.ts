/**
 * Bounded reads of JSON response bodies: a request's `application/json`
 * answer (one message or a batch array), and the JSON-RPC error an HTTP
 * error status may carry. Neither buffers past its limit.
 */
import { FrameError, isFailure, parseFrame, parseFrames, type ClassifiedFrame, type JsonRpcErrorObject } from '../protocol/jsonrpc.ts';

/** How much of an error body is read looking for a JSON-RPC error. */
const ERROR_BODY_LIMIT = 64 * 1024;
/**
 * How long an error body may take: its status already says what happened, the body only adds the server's words,
 * so a server that sends the status and then stalls costs this long, not the request's whole timeout.
 */
export const ERROR_BODY_WAIT_MS = 2_000;

/**
 * Reads at most `limit` characters; `undefined` when the body is longer (the rest is cancelled). When `signal`
 * aborts, the body is cancelled (its connection with it) and what was read so far is returned.
 */
async function readBoundedText(body: ReadableStream<Uint8Array>, limit: number, signal?: AbortSignal): Promise<string | undefined> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => undefined);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      text += decoder.decode(value, { stream: true });
      if (text.length > limit) {
        await reader.cancel().catch(() => undefined);
        return undefined;
      }
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    reader.releaseLock();
  }
}

/** The frames of a JSON body; an over-limit body is one `oversized` frame. */
export async function readJsonFrames(body: ReadableStream<Uint8Array>, maxFrameBytes: number): Promise<ClassifiedFrame[]> {
  const text = await readBoundedText(body, maxFrameBytes);
  if (text === undefined) {
    return [{ kind: 'invalid', error: new FrameError('oversized', `a JSON response body exceeds the ${maxFrameBytes} character frame limit`) }];
  }
  return parseFrames(text, maxFrameBytes);
}

/** The JSON-RPC error object in an error response's body, if it holds one. */
export async function readRpcError(response: Response, signal: AbortSignal): Promise<JsonRpcErrorObject | undefined> {
  if (!response.body) return undefined;
  const within = AbortSignal.any([signal, AbortSignal.timeout(ERROR_BODY_WAIT_MS)]);
  const text = await readBoundedText(response.body, ERROR_BODY_LIMIT, within).catch(() => undefined);
  if (text === undefined || text === '') return undefined;
  const frame = parseFrame(text, ERROR_BODY_LIMIT);
  return frame.kind === 'response' && isFailure(frame.message) ? frame.message.error : undefined;
}
