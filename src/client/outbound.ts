/**
 * The one way out of the client: every message it sends (requests, the
 * cancels of probes, calls and listens, notifications, replies to the
 * server's requests) passes through `Outbound.send`, so none can leave
 * without the envelope of the era the wire speaks. The era changes only
 * through `speak`, which tells the transport too (its headers), so the
 * envelope and the headers never disagree.
 */
import type { JsonObject, JsonRpcMessage } from '../protocol/jsonrpc.ts';
import { MetaKey, MODERN_VERSION, type Era, type Implementation } from '../protocol/versions.ts';
import type { ClientTransport } from '../transport/transport.ts';

/** The modern `_meta` envelope every 2026-07-28 request and notification carries. */
export const modernEnvelope = (clientInfo: Implementation, capabilities: JsonObject): JsonObject => ({
  [MetaKey.protocolVersion]: MODERN_VERSION,
  [MetaKey.clientInfo]: clientInfo,
  [MetaKey.clientCapabilities]: capabilities,
});

export class Outbound {
  /** The era the current transport speaks; undefined until negotiation says (nothing is enveloped then). */
  #speaking: Era | undefined;
  /** Built when the era is set: the same for every message until the next negotiation (capabilities may change between). */
  #envelope: JsonObject = {};

  constructor(private readonly identity: { clientInfo: Implementation; capabilities: JsonObject }) {}

  /** From now on `transport` speaks `protocol`. */
  speak(transport: ClientTransport, protocol: { era: Era; version: string }): void {
    this.#speaking = protocol.era;
    this.#envelope = modernEnvelope(this.identity.clientInfo, this.identity.capabilities);
    transport.setProtocol(protocol);
  }

  /** A new transport speaks nothing yet. */
  forget(): void {
    this.#speaking = undefined;
  }

  /** Sends `message`, one the client built: its params are replaced by enveloped ones, never changed. */
  send(message: JsonRpcMessage, transport: ClientTransport): Promise<void> {
    if (this.#speaking === 'modern' && 'method' in message) {
      const params = message.params;
      message.params = { ...params, _meta: { ...this.#envelope, ...(params?._meta as JsonObject | undefined) } };
    }
    return transport.send(message);
  }
}
