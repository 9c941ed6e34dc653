/** How the Streamable HTTP client transport (http.ts) is configured. */
import type { AuthProvider } from './auth/provider.ts';
import type { ResumeOptions } from './resumable-stream.ts';

/** Options of `httpTransport`: the endpoint, and how requests are made, bounded, resumed and authorized. */
export interface HttpTransportOptions {
  /** The MCP endpoint; http: or https:. */
  url: string | URL;
  /** Extra headers on every HTTP request (authorization, tracing). */
  headers?: Record<string, string>;
  /** Replaces the global fetch (Node's undici). */
  fetch?: typeof fetch;
  /** Frames above this many characters become `oversized` invalid frames. */
  maxFrameBytes?: number;
  /** Bytes of posted answers and notifications not yet taken past which a request from the server ends the transport (PeerNotReadingError); default 8 MiB. */
  maxBacklogBytes?: number;
  /** Bounds on resuming a broken legacy SSE stream with `Last-Event-ID` (resumable-stream.ts). */
  resume?: ResumeOptions;
  /**
   * A legacy GET stream whose server has sent a keep-alive comment and then nothing at all for this long counts as
   * broken: it is reopened with `Last-Event-ID` within the `resume` bounds (a reopen unanswered for as long is a
   * failed attempt), and when it cannot be, the transport ends with `GetStreamStalledError` and the connection
   * reconnects. Default `DEFAULT_STALL_AFTER_MS` (60 s); 0 never judges, nor is a server that sends no keep-alives.
   * (A modern listen stream has its own `stallAfterMs`, a `listen` option.)
   */
  stallAfterMs?: number;
  /** OAuth authorization for a protected server (see the README's "Authorization"); tokens carry over reconnects. */
  auth?: AuthProvider;
}
