/**
 * The I/O of machines/negotiation.machine.ts: the `server/discover` probe,
 * `initialize` and switching the wire to the negotiated era, each reporting
 * what the peer's answer says. When to send what, and what silence means,
 * is the machine's; here an answer is only read.
 */
import { fromCallback, fromPromise } from 'xstate';
import { messageOf } from '../../machines/errors.ts';
import { negotiationMachine, type DiscoverEvent, type InitializeEvent, type Negotiated } from '../../machines/negotiation.machine.ts';
import { HttpStatusError, InvalidResultError, NegotiationError, RpcError } from '../protocol/errors.ts';
import { checkServer } from '../protocol/result-shapes.ts';
import { AuthError } from '../transport/auth/errors.ts';
import { ErrorCode, type JsonObject } from '../protocol/jsonrpc.ts';
import {
  LATEST_LEGACY_VERSION,
  MetaKey,
  MODERN_VERSION,
  isLegacyVersion,
  type Era,
  type Implementation,
} from '../protocol/versions.ts';

/** Documented default: how long a first probe waits alone before `initialize` goes out beside it (stdio). */
export const DEFAULT_PROBE_TIMEOUT_MS = 2_000;

/** The wire operations negotiation needs, bound to the transport being negotiated. */
export interface NegotiationWire {
  /** Sends a request with no deadline of its own (the machine keeps time); `signal` withdraws it. */
  request(method: string, params: JsonObject, options: { signal?: AbortSignal; timeoutMs: number }): Promise<JsonObject>;
  notify(method: string): Promise<void>;
  /** Switches the era every later message is sent in (its envelope, the transport's headers). */
  speak(protocol: { era: Era; version: string }): void;
  /** Calls `listener` with the start of every line the peer sends that is no JSON-RPC message; returns the unsubscribe. */
  onUnreadable(listener: (sample: string) => void): () => void;
}

export interface NegotiationIdentity {
  clientInfo: Implementation;
  capabilities: JsonObject;
}

/** Modern errors a server returns when it does speak 2026-07-28 but refuses the request as sent. */
const MODERN_REFUSALS: ReadonlySet<number> = new Set([ErrorCode.HeaderMismatch, ErrorCode.MissingRequiredClientCapability]);

/** The modern revision we speak that a -32022 error's `supported` list names, if any. */
const spokenModern = (data: unknown): string | undefined => {
  const supported = (data as { supported?: unknown } | undefined)?.supported;
  return Array.isArray(supported) && supported.includes(MODERN_VERSION) ? MODERN_VERSION : undefined;
};

/**
 * Reads an answer to the `server/discover` probe. A JSON-RPC error is read
 * the same whether it came on stdio or in an HTTP body; an HTTP status
 * without one by what the status says.
 */
export function judgeProbe(outcome: { result: JsonObject } | { error: unknown }): DiscoverEvent {
  if ('result' in outcome) {
    const versions = outcome.result.supportedVersions;
    if (Array.isArray(versions) && versions.includes(MODERN_VERSION)) {
      const found = negotiated('modern', MODERN_VERSION, outcome.result);
      return found instanceof InvalidResultError ? { type: 'discover.failed', error: found } : { type: 'discover.modern', negotiated: found };
    }
    const listed = Array.isArray(versions) ? versions.filter((version) => typeof version === 'string').slice(0, 8) : versions;
    return { type: 'discover.legacy', evidence: `server/discover lists no ${MODERN_VERSION} (${JSON.stringify(listed) ?? 'nothing'})` };
  }
  const error = outcome.error;
  const failed = (why: string): DiscoverEvent => ({ type: 'discover.failed', error: new NegotiationError(why, { cause: error }) });
  // Authorization failed (or is missing): connect() rejects with the AuthError itself, as it does in the legacy era.
  if (error instanceof AuthError) return { type: 'discover.failed', error };
  if (error instanceof HttpStatusError && (error.status === 401 || error.status === 403)) {
    return failed(`authentication failed: HTTP ${error.status}`);
  }
  const rpc = error instanceof RpcError ? { code: error.rpcCode, data: error.data } : error instanceof HttpStatusError ? error.rpcError : undefined;
  if (rpc) {
    const retryWith = rpc.code === ErrorCode.UnsupportedProtocolVersion ? spokenModern(rpc.data) : undefined;
    if (retryWith !== undefined) return { type: 'discover.versionRefused', retryWith, error };
    if (MODERN_REFUSALS.has(rpc.code)) return failed(`the modern server refused the probe (${rpc.code})`);
    // Legacy servers answer an unknown pre-initialize request with an implementation-defined error.
    return { type: 'discover.legacy', evidence: `server/discover answered ${rpc.code}` };
  }
  if (error instanceof HttpStatusError) {
    if ([400, 404, 405].includes(error.status)) return { type: 'discover.legacy', evidence: `HTTP ${error.status} to server/discover` };
    return failed(`server/discover failed: ${error.message}`);
  }
  return failed(`server/discover failed: ${messageOf(error)}`);
}

/**
 * What an `initialize` or `server/discover` result says about the peer, or
 * InvalidResultError when its serverInfo or capabilities lack what MCP
 * defines (the client hands both out typed).
 */
function negotiated(era: Era, protocolVersion: string, result: JsonObject): Negotiated | InvalidResultError {
  const meta = result._meta as JsonObject | undefined;
  const serverInfo = meta?.[MetaKey.serverInfo] ?? result.serverInfo;
  const capabilities = (result.capabilities as JsonObject | undefined) ?? {};
  try {
    checkServer(era === 'modern' ? 'server/discover' : 'initialize', serverInfo, capabilities);
    return {
      era,
      protocolVersion,
      capabilities,
      serverInfo: serverInfo as Record<string, unknown> | undefined,
      instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
    };
  } catch (error) {
    if (error instanceof InvalidResultError) return error;
    throw error;
  }
}

/** Reads an answer to `initialize`: only a result in a legacy version is legacy. */
function judgeInitialize(outcome: { result: JsonObject } | { error: unknown }): InitializeEvent {
  if ('error' in outcome) {
    return outcome.error instanceof RpcError ? { type: 'initialize.refused', error: outcome.error } : { type: 'initialize.failed', error: outcome.error };
  }
  const version = outcome.result.protocolVersion;
  if (!isLegacyVersion(version)) {
    const error = new NegotiationError(`initialize answered unsupported protocol version ${JSON.stringify(version) ?? 'undefined'}`);
    return { type: 'initialize.failed', error };
  }
  const found = negotiated('legacy', version as string, outcome.result);
  return found instanceof InvalidResultError ? { type: 'initialize.failed', error: found } : { type: 'initialize.legacy', negotiated: found };
}

/**
 * The negotiation machine with its I/O: `wire()` is the transport being
 * negotiated, read when each step starts. `patienceMs` bounds the
 * `initialize` request too, so an answer that never comes leaves nothing behind.
 */
export function negotiationWithWire(wire: () => NegotiationWire, identity: NegotiationIdentity, patienceMs: number) {
  return negotiationMachine.provide({
    actors: {
      discover: fromCallback<{ type: 'never' }, { version: string | undefined }>(({ sendBack, input }) => {
        const withdrawn = new AbortController();
        const on = wire();
        on.speak({ era: 'modern', version: input.version ?? MODERN_VERSION });
        on.request('server/discover', {}, { signal: withdrawn.signal, timeoutMs: Infinity }).then(
          (result) => sendBack(judgeProbe({ result })),
          (error: unknown) => withdrawn.signal.aborted || sendBack(judgeProbe({ error })),
        );
        // Left unanswered (legacy adopted, negotiation over): the probe is cancelled, in the era the wire speaks.
        return () => withdrawn.abort();
      }),
      initialize: fromCallback<{ type: 'never' }, { underModernEnvelope: boolean }>(({ sendBack, input }) => {
        const on = wire();
        // Under the envelope the wire already speaks modern (the probe is out); otherwise it turns legacy first.
        if (!input.underModernEnvelope) on.speak({ era: 'legacy', version: LATEST_LEGACY_VERSION });
        const params = { protocolVersion: LATEST_LEGACY_VERSION, capabilities: identity.capabilities, clientInfo: identity.clientInfo };
        on.request('initialize', params, { timeoutMs: patienceMs }).then(
          (result) => sendBack(judgeInitialize({ result })),
          (error: unknown) => sendBack(judgeInitialize({ error })),
        );
      }),
      unreadableOutput: fromCallback(({ sendBack }) => wire().onUnreadable((sample) => sendBack({ type: 'peer.unreadable', sample }))),
      adopt: fromPromise<void, Negotiated>(async ({ input }) => {
        const on = wire();
        on.speak({ era: input.era, version: input.protocolVersion });
        if (input.era === 'legacy') await on.notify('notifications/initialized');
      }),
    },
  });
}
