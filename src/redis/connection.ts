/**
 * The two Redis connections a bus uses, and the facts they report: one for
 * publishing and the head check (the application's client, or one made from
 * a URL) and a duplicate of it for the blocking read, which holds its
 * connection for as long as it waits. node-redis reconnects both on its own;
 * the bus hears `ready` once both are ready again and `lost` when either drops.
 */
import { McpActorsError } from '../protocol/errors.ts';
import { commonJsExport } from '../runtime/commonjs-export.ts';

/**
 * What the bus needs of a node-redis client (`redis` 5 or 6; `createClient()`
 * from it fits). Raw commands only; its replies are read whatever its type mapping (bulk strings as Buffers, maps
 * as `Map`, RESP2 or 3).
 */
export interface RedisClientLike {
  /** Whether the client's socket is open (connected or reconnecting). */
  readonly isOpen: boolean;
  /** Whether the client can send commands now. */
  readonly isReady: boolean;
  /** Opens the connection. */
  connect(): Promise<unknown>;
  /** A new client with the same options, for the bus's blocking read. */
  duplicate(): RedisClientLike;
  /** Sends one raw command (`['XADD', …]`) and resolves with its reply, decoded as `options.typeMapping` says when given. */
  sendCommand(args: ReadonlyArray<string>, options?: { typeMapping?: Readonly<Record<number, unknown>> }): Promise<unknown>;
  /** Listens to a connection event. */
  on(event: 'ready' | 'end' | 'error' | 'reconnecting', listener: (...args: unknown[]) => void): unknown;
  /** Stops listening to a connection event. */
  off(event: 'ready' | 'end' | 'error' | 'reconnecting', listener: (...args: unknown[]) => void): unknown;
  /** Closes the connection after pending replies. */
  close(): Promise<unknown>;
  /** Closes the connection at once, dropping pending replies. */
  destroy(): void;
}

/** `mcp-actors/redis` was given a URL but the optional peer `redis` is not installed. */
export class RedisClientMissingError extends McpActorsError {
  override readonly name = 'RedisClientMissingError';
  readonly code = 'redis_client_missing';
  constructor(cause: unknown) {
    super('mcp-actors/redis needs the `redis` package (node-redis) beside mcp-actors: npm install redis', { cause });
  }
}

/**
 * Whether `cause` is Redis's own answer (node-redis's `ErrorReply`, as `SimpleError` or `BlobError`): Redis carried
 * the command out to that error. Anything else the client rejects a command with (the link lost, the client closed)
 * leaves its outcome unknown. Told by class name along the prototype chain, so it holds for any installed copy of
 * `redis`, as the application's client may come from its own.
 */
export function isErrorReply(cause: unknown): boolean {
  for (let proto: unknown = cause instanceof Error ? Object.getPrototypeOf(cause) : null; proto instanceof Object; proto = Object.getPrototypeOf(proto)) {
    if (Object.hasOwn(proto, 'constructor') && (proto as { constructor: { name: string } }).constructor.name === 'ErrorReply') return true;
  }
  return false;
}

/** Bounded, jittered: quick after a blip, at most ~2 s apart while Redis stays away; never gives up. */
export function reconnectDelay(retries: number): number {
  const base = Math.min(2000, 50 * 2 ** Math.min(retries, 6));
  return Math.round(base / 2 + Math.random() * (base / 2));
}

async function clientFromUrl(url: string): Promise<RedisClientLike> {
  let loaded: object;
  try {
    loaded = await import('redis');
  } catch (cause) {
    throw new RedisClientMissingError(cause);
  }
  const createClient = commonJsExport(loaded, 'createClient');
  if (typeof createClient !== 'function') throw new RedisClientMissingError(new TypeError('the redis package has no createClient export'));
  return createClient({ url, socket: { reconnectStrategy: reconnectDelay } }) as RedisClientLike;
}

export interface ConnectionFacts {
  ready(): void;
  lost(cause: unknown): void;
}

export class BusConnections {
  private constructor(
    readonly writer: RedisClientLike,
    readonly reader: RedisClientLike,
    private readonly ownsWriter: boolean,
    private readonly detach: () => void,
  ) {}

  /** Listens before connecting, so the first `ready` is heard; resolves once both connections were asked to connect. */
  static async open(redis: string | RedisClientLike, facts: ConnectionFacts): Promise<BusConnections> {
    const ownsWriter = typeof redis === 'string';
    const writer = typeof redis === 'string' ? await clientFromUrl(redis) : redis;
    const reader = writer.duplicate();
    const onReady = () => {
      if (writer.isReady && reader.isReady) facts.ready();
    };
    const onLost = (cause?: unknown) => {
      if (!writer.isReady || !reader.isReady) facts.lost(cause);
    };
    for (const client of [writer, reader]) {
      client.on('ready', onReady);
      // An 'error' listener also keeps node-redis from throwing it as an unhandled 'error' event.
      client.on('error', onLost);
      client.on('reconnecting', onLost);
      client.on('end', onLost);
    }
    const detach = () => {
      for (const client of [writer, reader]) {
        client.off('ready', onReady);
        client.off('reconnecting', onLost);
        client.off('end', onLost);
        // The 'error' listener stays: a late socket error after close must not crash the process.
      }
    };
    const connections = new BusConnections(writer, reader, ownsWriter, detach);
    // connect() rejects when the first attempt fails, yet node-redis keeps retrying; the facts tell the rest.
    if (!writer.isOpen) writer.connect().catch((cause: unknown) => facts.lost(cause));
    reader.connect().catch((cause: unknown) => facts.lost(cause));
    if (writer.isReady && reader.isReady) facts.ready();
    return connections;
  }

  /** Ends the read connection (and a blocking read in flight) and the writer if the bus made it. */
  async close(): Promise<void> {
    this.detach();
    this.reader.destroy();
    if (this.ownsWriter) await this.writer.close().catch(() => this.writer.destroy());
  }
}
