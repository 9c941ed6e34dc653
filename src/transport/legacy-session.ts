/**
 * What the HTTP transport remembers of a legacy (2025-era) session: the
 * `Mcp-Session-Id` the server minted on initialize and the protocol version
 * that initialize negotiated. Both go on every request after initialize.
 */
import type { ClassifiedFrame, JsonRpcMessage, RequestId } from '../protocol/jsonrpc.ts';

export class LegacySession {
  /** `Mcp-Session-Id` minted by the server; absent for stateless servers. */
  id: string | undefined;
  /** The negotiated version, known once initialize was answered. */
  version: string | undefined;
  private initializeId: RequestId | undefined;

  /** Call before sending: remembers our initialize request to read its answer. */
  noteOutgoing(message: JsonRpcMessage): void {
    if ('method' in message && 'id' in message && message.method === 'initialize') this.initializeId = message.id;
  }

  /** Any response may carry the session id; the server mints it on initialize. */
  noteResponseHeaders(headers: Headers): void {
    this.id = headers.get('mcp-session-id') ?? this.id;
  }

  /** Reads the negotiated version from the answer to our initialize, falling back to the requested one. */
  noteFrame(frame: ClassifiedFrame, requestedVersion: string): void {
    if (frame.kind !== 'response' || frame.message.id !== this.initializeId || !('result' in frame.message)) return;
    const negotiated = frame.message.result.protocolVersion;
    this.version = typeof negotiated === 'string' ? negotiated : requestedVersion;
  }

  /** The client was told the negotiated version again (or anew) after initialize. */
  renegotiated(version: string): void {
    if (this.version !== undefined) this.version = version;
  }

  /** Adds the session id and, after initialize, the negotiated version. */
  apply(headers: Headers): Headers {
    if (this.id !== undefined) headers.set('mcp-session-id', this.id);
    if (this.version !== undefined) headers.set('mcp-protocol-version', this.version);
    return headers;
  }
}
