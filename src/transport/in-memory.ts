/**
 * An in-memory linked pair: our client and a server in the same process,
 * joined by two in-memory byte streams instead of a child process, for tests
 * and for applications that embed a server. The shape follows the official
 * SDK's `InMemoryTransport.createLinkedPair`; the framing does not cut a
 * corner: every message is serialized as a line and classified on arrival
 * exactly as over stdio, and back-pressure holds as on a pipe.
 *
 * The server's end is the pair of streams `McpServer.serveStdio()` takes, so
 * the server serves it as it serves its own stdio:
 *
 *   const server = createServer({ name: 'app', version: '1.0.0' });
 *   const client = createClient({ transport: inMemoryTransport((end) => server.serveStdio(end)) });
 *
 * Each connection attempt links a fresh pair and hands its server end to
 * `serve`; `cut()` ends the link as a peer that died does, so reconnection
 * runs against the next pair.
 */
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { messageOf } from '../../machines/errors.ts';
import { NotConnectedError, TransportStartError, type PeerNotReadingError } from '../protocol/errors.ts';
import type { JsonRpcMessage } from '../protocol/jsonrpc.ts';
import { LineWriter, readFrames } from './line-stream.ts';
import { DEFAULT_MAX_BACKLOG_BYTES, DEFAULT_MAX_FRAME_BYTES, unreadBacklog, type ClientTransport, type TransportEvents } from './transport.ts';

/** The server's end of a link: what it reads from and writes to (`McpServer.serveStdio()` options). */
export interface InMemoryServerEnd {
  /** What the server reads: the client's messages, one per line. */
  readonly stdin: Readable;
  /** Where the server writes its messages, one per line. */
  readonly stdout: Writable;
}

/** What serving one end may return: a connection whose `closed` settles when the server stopped serving it. */
export interface InMemoryServedConnection {
  /** Settles when the server stopped serving the link. */
  readonly closed: Promise<void>;
}

/** Serves the server end of a fresh link, e.g. `(end) => server.serveStdio(end)`. */
export type InMemoryServe = (end: InMemoryServerEnd) => InMemoryServedConnection | void;

/** Options of `inMemoryTransport`. */
export interface InMemoryTransportOptions {
  /** Lines longer than this many UTF-8 bytes are refused (`oversized`), as over stdio. */
  maxFrameBytes?: number;
  /** Unread bytes written to the server past which a request from it ends the link (PeerNotReadingError), as over stdio; default 8 MiB. */
  maxBacklogBytes?: number;
}

/** The client's end of one link. */
export interface InMemoryClientTransport extends ClientTransport {
  readonly kind: 'memory';
  /**
   * Ends the link at once, as a server process that died: the server's input
   * ends, whatever it writes afterwards is lost, and the client is told the
   * transport `ended`. Does nothing before start or after the link ended.
   */
  cut(): void;
}

type Phase = 'idle' | 'open' | 'ended' | 'closing';

class InMemoryTransport implements InMemoryClientTransport {
  readonly kind = 'memory';
  private phase: Phase = 'idle';
  /** Client → server: the server's stdin. */
  private readonly toServer = new PassThrough();
  /** Server → client: the server's stdout. */
  private readonly toClient = new PassThrough();
  private readonly writer = new LineWriter(this.toServer);
  private events: TransportEvents | undefined;
  private served: InMemoryServedConnection | undefined;

  constructor(
    private readonly serve: InMemoryServe,
    private readonly options: InMemoryTransportOptions,
  ) {}

  start(events: TransportEvents): Promise<void> {
    if (this.phase !== 'idle') {
      return Promise.reject(new TransportStartError('this in-memory transport was already started; make a new one per connection'));
    }
    this.events = events;
    this.phase = 'open';
    const maxBacklogBytes = this.options.maxBacklogBytes ?? DEFAULT_MAX_BACKLOG_BYTES;
    readFrames(this.toClient, this.options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES, (frame) => {
      const refusal = this.phase === 'open' ? unreadBacklog(frame, this.writer.backlogBytes, maxBacklogBytes) : undefined;
      if (refusal) return this.dropUnreadPeer(refusal);
      if (this.phase === 'open' || this.phase === 'closing') events.frame(frame);
    }, () => this.ended());
    try {
      this.served = this.serve({ stdin: this.toServer, stdout: this.toClient }) ?? undefined;
    } catch (cause) {
      this.phase = 'ended';
      return Promise.reject(new TransportStartError(`the in-memory server failed to serve: ${messageOf(cause)}`, { cause }));
    }
    // A server that stops serving this end has, for the client, gone away: its output ends once flushed.
    void this.served?.closed.then(() => this.toClient.end());
    return Promise.resolve();
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (this.phase !== 'open') return Promise.reject(new NotConnectedError(this.phase));
    return this.writer.send(message);
  }

  abortRequest(): boolean {
    return false; // one shared channel, as over stdio: the caller sends notifications/cancelled
  }

  setProtocol(): void {
    // Line framing does not depend on the protocol.
  }

  cut(): void {
    if (this.phase !== 'open') return;
    this.toServer.end();
    this.toClient.destroy();
    this.ended();
  }

  async close(): Promise<void> {
    if (this.phase !== 'open') return;
    this.phase = 'closing';
    this.toServer.end(); // the server's input ends, as a stdio server's stdin does
    await this.served?.closed;
    this.toClient.destroy();
    this.phase = 'ended';
  }

  /** The server asks without reading: the link is cut, its backlog dropped, and the failure reported once. */
  private dropUnreadPeer(cause: PeerNotReadingError): void {
    this.phase = 'ended';
    this.toServer.destroy();
    this.toClient.destroy();
    this.events?.closed({ type: 'failed', cause });
  }

  /** The server's output ended (or was cut): reported once, and never after a local close. */
  private ended(): void {
    if (this.phase !== 'open') return;
    this.phase = 'ended';
    this.events?.closed({ type: 'ended' });
  }
}

/** A TransportFactory of in-memory links: each connection attempt links a fresh pair and hands its server end to `serve`. */
export function inMemoryTransport(serve: InMemoryServe, options: InMemoryTransportOptions = {}): () => InMemoryClientTransport {
  return () => new InMemoryTransport(serve, options);
}
