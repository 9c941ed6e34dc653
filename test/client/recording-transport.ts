/**
 * What a client puts on the wire, for tests that must see it.
 *
 * `WireRecord` wraps a transport factory: every transport it makes passes
 * through, and the record keeps each message the client sent (numbered by
 * connection attempt) and each `abortRequest` it asked for. `recordingFetch`
 * wraps fetch for the HTTP transport: each POST with the message it carried
 * and the abort signal its response stream is read under, so a test can see
 * a listen's response stream being cut.
 */
import type { JsonObject, JsonRpcMessage, RequestId } from '../../src/protocol/jsonrpc.ts';
import type { Era } from '../../src/protocol/versions.ts';
import type { ClientTransport, TransportEvents, TransportFactory } from '../../src/transport/transport.ts';

/** One message the client handed a transport, and the connection attempt that transport belongs to (0 for the first). */
export interface SentMessage {
  attempt: number;
  message: JsonRpcMessage;
}

/** One `abortRequest` call and what the transport answered (true: it had a response stream to cut). */
export interface AbortedRequest {
  attempt: number;
  id: RequestId;
  hadStream: boolean;
}

/** A JSON-RPC request or notification as sent, flattened for assertions. */
export interface SentCall {
  /** Its position among everything sent (`WireRecord.sent`). */
  index: number;
  attempt: number;
  id: RequestId | undefined;
  method: string;
  params: JsonObject;
}

export class WireRecord {
  readonly sent: SentMessage[] = [];
  readonly aborted: AbortedRequest[] = [];
  #attempts = 0;

  constructor(private readonly inner: TransportFactory) {}

  /** A factory for `createClient({ transport })`. */
  readonly factory: TransportFactory = () => new RecordingTransport(this.inner(), this.#attempts++, this);

  /** Every request and notification of a method the client sent, oldest first. */
  calls(method: string): SentCall[] {
    const calls: SentCall[] = [];
    for (const [index, { attempt, message }] of this.sent.entries()) {
      if (!('method' in message) || message.method !== method) continue;
      calls.push({ index, attempt, id: 'id' in message ? message.id : undefined, method, params: message.params ?? {} });
    }
    return calls;
  }
}

class RecordingTransport implements ClientTransport {
  readonly kind: ClientTransport['kind'];

  constructor(
    private readonly inner: ClientTransport,
    private readonly attempt: number,
    private readonly record: WireRecord,
  ) {
    this.kind = inner.kind;
  }

  start(events: TransportEvents): Promise<void> {
    return this.inner.start(events);
  }

  send(message: JsonRpcMessage): Promise<void> {
    this.record.sent.push({ attempt: this.attempt, message });
    return this.inner.send(message);
  }

  abortRequest(id: RequestId): boolean {
    const hadStream = this.inner.abortRequest(id);
    this.record.aborted.push({ attempt: this.attempt, id, hadStream });
    return hadStream;
  }

  setProtocol(protocol: { era: Era; version: string }): void {
    this.inner.setProtocol(protocol);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** One POST the HTTP transport made: the message in its body and the signal its response is read under. */
export interface RecordedPost {
  message: JsonRpcMessage;
  signal: AbortSignal | undefined;
}

export interface RecordingFetch {
  fetch: typeof fetch;
  posts: RecordedPost[];
  /** The POST that carried the request with this method and id. */
  request(method: string, id: RequestId): RecordedPost | undefined;
}

export function recordingFetch(): RecordingFetch {
  const posts: RecordedPost[] = [];
  const recorded: typeof fetch = (input, init) => {
    if (init?.method === 'POST' && typeof init.body === 'string') {
      posts.push({ message: JSON.parse(init.body) as JsonRpcMessage, signal: init.signal ?? undefined });
    }
    return globalThis.fetch(input, init);
  };
  return {
    fetch: recorded,
    posts,
    request: (method, id) =>
      posts.find(({ message }) => 'method' in message && message.method === method && 'id' in message && message.id === id),
  };
}

export interface CuttableFetch {
  fetch: typeof fetch;
  /** The id of every `subscriptions/listen` POST, in order. */
  listenIds: unknown[];
  /** Ends every open listen response stream as a proxy cutting it would: the body just stops, no answer. */
  cutListens(): void;
}

/** fetch for the HTTP transport whose listen response streams the test can cut on the way, the server untouched. */
export function cuttableFetch(): CuttableFetch {
  const listenIds: unknown[] = [];
  const open = new Set<() => void>();
  const wrapped: typeof fetch = async (input, init) => {
    const message = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string; id?: unknown }) : undefined;
    const response = await globalThis.fetch(input, init);
    if (message?.method !== 'subscriptions/listen' || !response.body) return response;
    listenIds.push(message.id);
    const reader = response.body.getReader();
    let cut!: () => void;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        cut = () => {
          open.delete(cut);
          void reader.cancel();
          controller.close();
        };
        open.add(cut);
      },
      async pull(controller) {
        const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
        if (!open.has(cut)) return;
        if (chunk.done) {
          open.delete(cut);
          controller.close();
        } else controller.enqueue(chunk.value);
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { fetch: wrapped, listenIds, cutListens: () => [...open].forEach((cut) => cut()) };
}
