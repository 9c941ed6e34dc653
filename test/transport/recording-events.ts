/**
 * TransportEvents that record what a transport reports and let a test wait
 * for a particular frame or for the close, instead of sleeping.
 */
import type { ClassifiedFrame, JsonRpcRequest, JsonRpcResponse, RequestId } from '../../src/protocol/jsonrpc.ts';
import type { TransportClosedInfo, TransportEvents } from '../../src/transport/transport.ts';

interface Waiter {
  match: (frame: ClassifiedFrame) => boolean;
  resolve: (frame: ClassifiedFrame) => void;
}

export class RecordingEvents implements TransportEvents {
  readonly frames: ClassifiedFrame[] = [];
  readonly errors: Error[] = [];
  readonly closures: TransportClosedInfo[] = [];
  private waiters: Waiter[] = [];
  private closedWaiters: Array<(info: TransportClosedInfo) => void> = [];

  frame(frame: ClassifiedFrame): void {
    this.frames.push(frame);
    this.waiters = this.waiters.filter((waiter) => {
      if (!waiter.match(frame)) return true;
      waiter.resolve(frame);
      return false;
    });
  }

  requestStreamEnded(): void {
    throw new Error('a stdio transport has no per-request streams');
  }

  /** The request ids whose response streams carried a keep-alive, one entry per keep-alive. */
  readonly keepAlives: RequestId[] = [];

  keepAlive(id: RequestId): void {
    this.keepAlives.push(id);
  }

  closed(info: TransportClosedInfo): void {
    this.closures.push(info);
    for (const resolve of this.closedWaiters) resolve(info);
    this.closedWaiters = [];
  }

  error(error: Error): void {
    this.errors.push(error);
  }

  /** The first frame, already seen or still to come, that matches. */
  next(match: (frame: ClassifiedFrame) => boolean): Promise<ClassifiedFrame> {
    const seen = this.frames.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** The response for one request id. */
  async response(id: RequestId): Promise<JsonRpcResponse> {
    const frame = await this.next((candidate) => candidate.kind === 'response' && candidate.message.id === id);
    if (frame.kind !== 'response') throw new Error('unreachable: matched a response');
    return frame.message;
  }

  /** Resolves with how the transport closed. */
  whenClosed(): Promise<TransportClosedInfo> {
    const [first] = this.closures;
    if (first) return Promise.resolve(first);
    return new Promise((resolve) => this.closedWaiters.push(resolve));
  }
}

/** The result object of a successful response, or a thrown error naming the failure. */
export function resultOf(response: JsonRpcResponse): Record<string, unknown> {
  if ('error' in response) throw new Error(`expected a result, got error ${JSON.stringify(response.error)}`);
  return response.result;
}

/** A JSON-RPC request frame for a test to send. */
export const request = (id: RequestId, method: string, params?: Record<string, unknown>): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params && { params }),
});

/** A legacy `initialize` request (id 1) from a client named `clientName`. */
export const initializeRequest = (clientName: string): JsonRpcRequest =>
  request(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: clientName, version: '1.0.0' } });
