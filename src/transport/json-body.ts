/**
 * Bounded reads of JSON response bodies: a request's `application/json`
 * answer (one message or a batch array), and the JSON-RPC error an HTTP
 * error status may carry. Neither buffers past its limit.
 */
import { FrameError, isFailure, parseFrame, parseFrames, type ClassifiedFrame, type JsonRpcErrorObject } from '../protocol/jsonrpc.ts';

/** How much of an error body is read looking for a JSON-RPC error. */
const ERROR_BODY_LIMIT = 64 * 1024;

/** Reads at most `limit` characters; `undefined` when the body is longer (the rest is cancelled). */
async function readBoundedText(body: ReadableStream<Uint8Array>, limit: number): Promise<string | undefined> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
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
export async function readRpcError(response: Response): Promise<JsonRpcErrorObject | undefined> {
  if (!response.body) return undefined;
  const text = await readBoundedText(response.body, ERROR_BODY_LIMIT).catch(() => undefined);
  if (text === undefined || text === '') return undefined;
  const frame = parseFrame(text, ERROR_BODY_LIMIT);
  return frame.kind === 'response' && isFailure(frame.message) ? frame.message.error : undefined;
}
