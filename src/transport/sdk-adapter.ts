/**
 * Runs the client over any transport written for the official MCP SDK (its
 * `Transport` interface: start, send, close and the onmessage / onclose /
 * onerror callbacks). The SDK is not imported: `SdkTransportLike` states the
 * shape structurally, so an SDK transport fits without a dependency.
 *
 * - Every inbound message goes through `classifyFrame`; invalid ones become
 *   `invalid` frames and never end the transport.
 * - `onclose` from the SDK transport is reported as `{ type: 'ended' }`,
 *   unless the owner closed it with `close()`.
 * - Pass a factory (`() => new SomeTransport()`) to allow reconnects: each
 *   connection attempt gets a fresh SDK transport. A single object can be
 *   used for one connection only; starting it again fails with
 *   TransportStartError.
 */
import { messageOf } from '../../machines/errors.ts';
import { classifyFrame, type JsonRpcMessage } from '../protocol/jsonrpc.ts';
import { NotConnectedError, TransportStartError } from '../protocol/errors.ts';
import type { ClientTransport, TransportEvents, TransportFactory } from './transport.ts';

/**
 * What `send` is given: one JSON-RPC message. Kept this loose because the
 * SDK's own `JSONRPCMessage` type words ids differently from ours.
 */
export interface SdkWireMessage {
  jsonrpc: '2.0';
}

/**
 * The official SDK's Transport, as far as this adapter uses it. Members are
 * declared as methods so SDK transports with narrower parameter types fit.
 */
export interface SdkTransportLike {
  /** Opens the transport. */
  start(): Promise<void>;
  /** Sends one JSON-RPC message. */
  send(message: SdkWireMessage): Promise<void>;
  /** Closes the transport. */
  close(): Promise<void>;
  /** Set by the adapter: called with each inbound message. */
  onmessage?(message: unknown, extra?: unknown): void;
  /** Set by the adapter: called once the transport closed. */
  onclose?(): void;
  /** Set by the adapter: called on errors that do not close the transport. */
  onerror?(error: Error): void;
  /** Told the negotiated protocol version, where the transport uses it (HTTP headers). */
  setProtocolVersion?(version: string): void;
}

type Phase = 'idle' | 'open' | 'ended' | 'closed';

class SdkTransportAdapter implements ClientTransport {
  readonly kind = 'custom';
  private phase: Phase = 'idle';
  private source: SdkTransportLike | undefined;

  constructor(private readonly acquire: () => SdkTransportLike) {}

  async start(events: TransportEvents): Promise<void> {
    if (this.phase !== 'idle') throw new TransportStartError('this transport was already started; make a new one per connection');
    this.phase = 'open';
    let source: SdkTransportLike;
    try {
      source = this.acquire();
    } catch (cause) {
      this.phase = 'closed';
      throw cause instanceof TransportStartError ? cause : new TransportStartError(`cannot create the SDK transport: ${messageOf(cause)}`, { cause });
    }
    this.source = source;
    source.onmessage = (message) => {
      if (this.phase === 'open') events.frame(classifyFrame(message));
    };
    source.onerror = (error) => {
      if (this.phase === 'open') events.error(error);
    };
    source.onclose = () => {
      if (this.phase !== 'open') return; // a local close, or already reported
      this.phase = 'ended';
      events.closed({ type: 'ended' });
    };
    try {
      await source.start();
    } catch (cause) {
      this.phase = 'closed';
      throw new TransportStartError(`the SDK transport did not start: ${messageOf(cause)}`, { cause });
    }
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (this.phase !== 'open' || !this.source) {
      return Promise.reject(new NotConnectedError(this.phase));
    }
    return this.source.send(message);
  }

  abortRequest(): boolean {
    return false;
  }

  setProtocol(protocol: { version: string }): void {
    this.source?.setProtocolVersion?.(protocol.version);
  }

  async close(): Promise<void> {
    const wasOpen = this.phase === 'open';
    this.phase = 'closed';
    if (wasOpen) await this.source?.close();
  }
}

/** Adapts an official-SDK-style transport, or a factory of them, into a TransportFactory. */
export function fromSdkTransport(source: SdkTransportLike | (() => SdkTransportLike)): TransportFactory {
  if (typeof source === 'function') return () => new SdkTransportAdapter(source);
  let used = false;
  const once = (): SdkTransportLike => {
    if (used) {
      throw new TransportStartError(
        'this SDK transport object was already used for a connection; pass a factory (() => new Transport()) to reconnect',
      );
    }
    used = true;
    return source;
  };
  return () => new SdkTransportAdapter(once);
}
