/**
 * A scripted HTTP peer for what the official client cannot do on cue (count
 * frames on the wire during a 100,000-frame burst, never read a stream, never
 * finish initializing): raw POSTs to our server, each SSE response read frame
 * by frame as it arrives.
 */
import { LEGACY_VERSIONS, MODERN_VERSION } from '../../src/protocol/versions.ts';
import { modernMeta, type Message } from './raw-stdio-peer.ts';

const LEGACY_VERSION = LEGACY_VERSIONS[LEGACY_VERSIONS.length - 1]!;

/** One POST's response: its status and headers at once, its messages as they arrive. */
export interface RawExchange {
  readonly response: Response;
  readonly messages: Message[];
  /** Resolves with the first message (past or future) matching. */
  next(match: (message: Message) => boolean): Promise<Message>;
  /** Resolves once the response body ended. */
  readonly ended: Promise<void>;
  /** SSE comment lines (keep-alives) read so far. */
  readonly comments: number;
  /** Starts reading the body, for an exchange opened with `read: false`. */
  read(): void;
}

/** `read: false` leaves the body unread (the client stops reading) until `read()`. */
export interface ExchangeOptions {
  read?: boolean;
  /** Aborting it drops the connection (the client gave up on it). */
  signal?: AbortSignal;
}

/** POSTs `body`, or without one GETs (a legacy session's stream, or a resume), and reads the answer as it comes. */
async function exchange(url: string, headers: Record<string, string>, body: Message | undefined, options: ExchangeOptions = {}): Promise<RawExchange> {
  const response = await fetch(
    url,
    body === undefined
      ? { method: 'GET', headers: { accept: 'text/event-stream', ...headers }, signal: options.signal }
      : {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
          body: JSON.stringify(body),
          signal: options.signal,
        },
  );
  const messages: Message[] = [];
  let comments = 0;
  let waiters: { match: (message: Message) => boolean; resolve: (message: Message) => void }[] = [];
  const deliver = (message: Message) => {
    messages.push(message);
    waiters = waiters.filter((waiter) => {
      if (!waiter.match(message)) return true;
      waiter.resolve(message);
      return false;
    });
  };
  const sse = response.headers.get('content-type')?.startsWith('text/event-stream') ?? false;
  let startReading!: () => void;
  const reading = new Promise<void>((resolve) => (startReading = resolve));
  if (options.read !== false) startReading();
  const ended = (async () => {
    await reading;
    if (!response.body) return;
    const decoder = new TextDecoder();
    let partial = '';
    const reader = response.body.getReader();
    for (;;) {
      // A connection the test dropped on purpose ends here.
      const { done, value } = await reader.read().catch((error: unknown) => {
        if (options.signal?.aborted) return { done: true as const, value: undefined };
        throw error;
      });
      if (done) break;
      partial += decoder.decode(value, { stream: true });
      if (!sse) continue;
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      // A priming event (an id and `retry`, empty data) carries no message.
      for (const line of lines) {
        if (line.startsWith(':')) comments++;
        else if (line.startsWith('data: ') && line.length > 6) deliver(JSON.parse(line.slice(6)) as Message);
      }
    }
    if (!sse && partial !== '') deliver(JSON.parse(partial) as Message);
  })();
  return {
    response,
    messages,
    get comments() {
      return comments;
    },
    ended,
    read: startReading,
    next(match) {
      const seen = messages.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

const NAMED: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/** A modern-era POST with the mirrored headers the 2026-07-28 transport asks for. */
export function modernPost(
  url: string,
  id: string | number,
  method: string,
  params: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
  options: ExchangeOptions = {},
): Promise<RawExchange> {
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': method };
  const named = NAMED[method];
  if (named) headers['mcp-name'] = String(params[named]);
  return exchange(url, headers, { jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta(meta) } }, options);
}

/** A legacy session on one endpoint: `initialize` (optionally never confirmed), then POSTs carrying its id. */
export class RawLegacySession {
  private constructor(
    readonly url: string,
    readonly id: string,
    readonly version: string,
  ) {}

  /**
   * Initializes a session (of `version`, the newest legacy one by default, declaring `capabilities`); with `confirm`
   * false it never sends notifications/initialized.
   */
  static async open(url: string, confirm = true, version = LEGACY_VERSION, capabilities: Record<string, unknown> = {}): Promise<RawLegacySession> {
    const init = await exchange(url, {}, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: version, capabilities, clientInfo: { name: 'raw-http-peer', version: '1.0.0' } },
    });
    await init.ended;
    const id = init.response.headers.get('mcp-session-id');
    if (init.response.status !== 200 || id === null) throw new Error(`initialize failed with HTTP ${init.response.status}`);
    const session = new RawLegacySession(url, id, version);
    if (confirm) await (await session.post({ jsonrpc: '2.0', method: 'notifications/initialized' })).ended;
    return session;
  }

  /** The headers every POST of this session carries. */
  get headers(): Record<string, string> {
    return { 'mcp-session-id': this.id, 'mcp-protocol-version': this.version };
  }

  post(body: Message, options: ExchangeOptions = {}): Promise<RawExchange> {
    return exchange(this.url, this.headers, body, options);
  }

  request(id: string | number, method: string, params: Record<string, unknown> = {}): Promise<RawExchange> {
    return this.post({ jsonrpc: '2.0', id, method, params });
  }

  /** GETs the session's stream, or with `lastEventId` resumes it (or, with a `p` id, a POST's stream). */
  stream(lastEventId?: string, options: ExchangeOptions = {}): Promise<RawExchange> {
    return exchange(this.url, { ...this.headers, ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) }, undefined, options);
  }
}
