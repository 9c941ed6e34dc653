/**
 * Reads the response to one POSTed request of the Streamable HTTP client
 * transport (http.ts), in the body the server chose: a JSON body, a modern
 * SSE stream, or a legacy SSE stream that resumes with `Last-Event-ID` when
 * it breaks (legacy-get-stream.ts). Frames go to the transport as they come;
 * the stream ends at the request's own response. A stream that ends without
 * one is reported with `requestStreamEnded`, naming why when it is known (a
 * frame too large, a content type that is none of these).
 */
import { StreamEndedError } from '../protocol/errors.ts';
import type { ClassifiedFrame, FrameError, JsonRpcRequest, JsonRpcResponse, RequestId } from '../protocol/jsonrpc.ts';
import type { Era } from '../protocol/versions.ts';
import { readJsonFrames } from './json-body.ts';
import { followLegacyStream, type LegacyStreamHost } from './legacy-get-stream.ts';
import { mediaType } from './resumable-stream.ts';
import { readSseFrames, type FrameVerdict } from './sse-stream.ts';

/** What reading a request's response needs of the transport, beside what a legacy stream does. */
export interface RequestResponseHost extends LegacyStreamHost {
  /** The era and version the connection negotiated (modern until told otherwise). */
  readonly protocol: { readonly era: Era; readonly version: string };
  /** Modern: a `tools/list` response, with the tools' marked arguments learned (and tools with invalid marks dropped). */
  learnTools(response: JsonRpcResponse): JsonRpcResponse;
  /** A keep-alive arrived on the request's stream. */
  keepAlive(id: RequestId): void;
  /** The request's stream ended without its response. */
  requestStreamEnded(id: RequestId, error: StreamEndedError): void;
}

/** Delivers one request's response body; reports the stream ended if it held no response to the request. */
export async function readRequestResponse(
  host: RequestResponseHost,
  endpoint: URL,
  response: Response,
  request: JsonRpcRequest,
  controller: AbortController,
): Promise<void> {
  const { id } = request;
  let answered = false;
  /** What the stream held instead of an answer (a frame too large, say): why it ended unanswered. */
  let refused: FrameError | undefined;
  const deliver = (frame: ClassifiedFrame): FrameVerdict => {
    if (!host.open || controller.signal.aborted) return 'stop';
    if (frame.kind === 'invalid') refused = frame.error;
    if (frame.kind === 'response' && frame.message.id === id) {
      answered = true;
      if (host.protocol.era === 'legacy') host.session.noteFrame(frame, host.protocol.version);
      else if (request.method === 'tools/list') frame = { kind: 'response', message: host.learnTools(frame.message) };
    }
    host.inbound(frame);
    return answered ? 'stop' : 'continue';
  };
  let cause: unknown;
  try {
    const type = mediaType(response);
    if (response.body === null) cause = new Error(`HTTP ${response.status} with no body`);
    else if (type === 'text/event-stream' && host.protocol.era === 'legacy') {
      const end = await followLegacyStream(host, endpoint, response.body, controller, deliver);
      if (end.type === 'lost') cause = end.cause;
    } else if (type === 'text/event-stream') {
      await readSseFrames(response.body, host.maxFrameBytes, deliver, { onComment: () => host.open && host.keepAlive(id) });
    } else if (type === 'application/json') for (const frame of await readJsonFrames(response.body, host.maxFrameBytes)) deliver(frame);
    else {
      cause = new Error(`unexpected response content type ${type ?? '(none)'}`);
      await response.body.cancel();
    }
  } catch (error) {
    cause = error;
  }
  host.fetches.end(controller);
  if (!answered && !controller.signal.aborted && host.open) {
    host.requestStreamEnded(id, new StreamEndedError(id, { cause: cause ?? refused }));
  }
}
