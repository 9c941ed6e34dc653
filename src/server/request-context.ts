/**
 * What a tool, prompt or resource handler gets besides its arguments.
 * `progress` and `log` reach only the client that made the request: on the
 * modern era on that request's own response stream (stdio: the requester's
 * connection), on the legacy era to the requesting session. Both resolve once
 * the message is queued with room to spare, so a handler that emits in a loop
 * is paced by the client instead of filling memory, or as soon as the request
 * is cancelled or its client goes away (`signal` aborts), so a handler never
 * waits on a client that left.
 *
 * Progress is sent only when the request carried a `progressToken`; log
 * messages only at or above the requested level (modern: the request's
 * `_meta["io.modelcontextprotocol/logLevel"]`, none when absent; legacy: the
 * session's `logging/setLevel`, everything when never set).
 */
import type { Era } from '../../machines/era.ts';
import type { RequestId } from '../protocol/jsonrpc.ts';
import { clientInput, type ClientAsker, type ClientInput } from './client-input.ts';

export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const isLogLevel = (value: unknown): value is LogLevel =>
  typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);

/**
 * Besides the fields below, `elicit`, `createMessage` and `listRoots`
 * (ClientInput) ask the client for input, the same code in both eras: legacy,
 * a request to the client over the session, awaited (with
 * `limits.clientRequestTimeoutMs` and this request's `signal`); modern, an
 * input-required result and the client's retry, on which the handler runs
 * again and each ask answers at once with the client's response. An ask the
 * client did not declare the capability for is never sent: it throws
 * MissingClientCapabilityError (-32021, modern) or
 * UndeclaredClientCapabilityError (legacy, whose protocol has no such code).
 */
export interface RequestContext extends ClientInput {
  readonly era: Era;
  readonly requestId: RequestId;
  /** Aborted when the client cancels the request or its connection goes away. */
  readonly signal: AbortSignal;
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  progress(progress: number, total?: number, message?: string): Promise<void>;
  log(level: LogLevel, data: unknown, logger?: string): Promise<void>;
  /** Modern era: the input-required rounds this request went through (0 on the first attempt). Legacy: always 0. */
  readonly inputRound: number;
}

/** Where request-scoped notifications for one request go. */
export interface ReplyChannel {
  notify(json: string): Promise<void>;
}

export interface RequestScope {
  era: Era;
  requestId: RequestId;
  signal: AbortSignal;
  clientCapabilities: Record<string, unknown>;
  progressToken: string | number | undefined;
  /** Lowest level sent; undefined sends no log messages. */
  logThreshold: LogLevel | undefined;
  channel: ReplyChannel;
  /** How this era carries the handler's asks to the client. */
  asker: ClientAsker;
  inputRound: number;
}

export function createRequestContext(scope: RequestScope): RequestContext {
  const { channel, signal, progressToken, logThreshold } = scope;
  return {
    era: scope.era,
    requestId: scope.requestId,
    signal,
    clientCapabilities: scope.clientCapabilities,
    inputRound: scope.inputRound,
    ...clientInput(scope.asker, scope.clientCapabilities),
    async progress(progress, total, message) {
      if (progressToken === undefined || signal.aborted) return;
      const params: Record<string, unknown> = { progressToken, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      await untilAborted(channel.notify(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params })), signal);
    },
    async log(level, data, logger) {
      if (logThreshold === undefined || signal.aborted) return;
      if (LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(logThreshold)) return;
      const params: Record<string, unknown> = { level, data };
      if (logger !== undefined) params.logger = logger;
      await untilAborted(channel.notify(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params })), signal);
    },
  };
}

/** Resolves when `wait` settles or `signal` aborts, whichever comes first. */
function untilAborted(wait: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    wait.then(done, done);
  });
}
