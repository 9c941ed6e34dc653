/**
 * Era negotiation. `auto` probes `server/discover` with a short timeout and
 * falls back to `initialize` only on evidence that the peer is legacy;
 * authentication and network failures are errors, never evidence.
 */
import type { Negotiated } from '../../machines/connection.machine.ts';
import {
  HttpStatusError,
  NegotiationError,
  RequestTimeoutError,
  RpcError,
} from '../protocol/errors.ts';
import { ErrorCode, type JsonObject } from '../protocol/jsonrpc.ts';
import {
  LATEST_LEGACY_VERSION,
  MetaKey,
  MODERN_VERSION,
  isLegacyVersion,
  type EraPreference,
  type Implementation,
} from '../protocol/versions.ts';
import type { TransportKind } from '../transport/transport.ts';

/** Documented default: a modern server answers `server/discover` well within this. */
export const DEFAULT_PROBE_TIMEOUT_MS = 2_000;

/** The wire operations negotiation needs, bound to the connection being opened. */
export interface NegotiationWire {
  readonly transportKind: TransportKind;
  request(method: string, params: JsonObject, timeoutMs: number): Promise<JsonObject>;
  notify(method: string, params?: JsonObject): Promise<void>;
  setProtocol(protocol: { era: 'legacy' | 'modern'; version: string }): void;
}

export interface NegotiationOptions {
  era: EraPreference;
  clientInfo: Implementation;
  capabilities: JsonObject;
  probeTimeoutMs: number;
  requestTimeoutMs: number;
}

/** The modern `_meta` envelope every 2026-07-28 request carries. */
export const modernEnvelope = (clientInfo: Implementation, capabilities: JsonObject): JsonObject => ({
  [MetaKey.protocolVersion]: MODERN_VERSION,
  [MetaKey.clientInfo]: clientInfo,
  [MetaKey.clientCapabilities]: capabilities,
});

/** Modern errors a server returns when it does speak 2026-07-28 but refuses the request as sent. */
const MODERN_REFUSALS: ReadonlySet<number> = new Set([ErrorCode.HeaderMismatch, ErrorCode.MissingRequiredClientCapability]);

type ProbeVerdict =
  | { kind: 'modern'; result: JsonObject }
  | { kind: 'legacy'; evidence: string; unanswered?: true }
  | { kind: 'error'; error: Error };

const listsModern = (data: unknown): boolean => {
  const supported = (data as { supported?: unknown } | undefined)?.supported;
  return Array.isArray(supported) && supported.includes(MODERN_VERSION);
};

/**
 * Reads the outcome of a `server/discover` probe. A JSON-RPC error is judged
 * the same whether it came on stdio or in an HTTP body; an HTTP status
 * without one, and a timeout, are judged by what the transport can tell.
 */
export function judgeProbe(outcome: { result: JsonObject } | { error: unknown }, transportKind: TransportKind): ProbeVerdict {
  if ('result' in outcome) {
    const versions = outcome.result.supportedVersions;
    if (Array.isArray(versions) && versions.includes(MODERN_VERSION)) return { kind: 'modern', result: outcome.result };
    return { kind: 'legacy', evidence: `server/discover lists no ${MODERN_VERSION} (${JSON.stringify(versions)})` };
  }
  const error = outcome.error;
  const failed = (why: string) => ({ kind: 'error' as const, error: new NegotiationError(why, { cause: error }) });
  if (error instanceof HttpStatusError && (error.status === 401 || error.status === 403)) {
    return failed(`authentication failed: HTTP ${error.status}`);
  }
  const rpc = error instanceof RpcError ? { code: error.rpcCode, data: error.data } : error instanceof HttpStatusError ? error.rpcError : undefined;
  if (rpc) {
    if (rpc.code === ErrorCode.UnsupportedProtocolVersion && listsModern(rpc.data)) return failed('the server lists 2026-07-28 yet refused it');
    if (MODERN_REFUSALS.has(rpc.code)) return failed(`the modern server refused the probe (${rpc.code})`);
    // Legacy servers answer an unknown pre-initialize request with an implementation-defined error.
    return { kind: 'legacy', evidence: `server/discover answered ${rpc.code}` };
  }
  if (error instanceof HttpStatusError) {
    if ([400, 404, 405].includes(error.status)) return { kind: 'legacy', evidence: `HTTP ${error.status} to server/discover` };
    return failed(`server/discover failed: ${error.message}`);
  }
  if (error instanceof RequestTimeoutError && transportKind !== 'http') {
    return { kind: 'legacy', evidence: 'no answer to server/discover', unanswered: true };
  }
  return failed(`server/discover failed: ${error instanceof Error ? error.message : String(error)}`);
}

/** What an `initialize` or `server/discover` result says about the peer. */
function negotiated(era: Negotiated['era'], protocolVersion: string, result: JsonObject): Negotiated {
  const meta = result._meta as JsonObject | undefined;
  return {
    era,
    protocolVersion,
    capabilities: (result.capabilities as JsonObject | undefined) ?? {},
    serverInfo: (meta?.[MetaKey.serverInfo] ?? result.serverInfo) as Record<string, unknown> | undefined,
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
  };
}

async function initialize(wire: NegotiationWire, options: NegotiationOptions): Promise<Negotiated> {
  wire.setProtocol({ era: 'legacy', version: LATEST_LEGACY_VERSION });
  const result = await wire
    .request(
      'initialize',
      { protocolVersion: LATEST_LEGACY_VERSION, capabilities: options.capabilities, clientInfo: options.clientInfo },
      options.requestTimeoutMs,
    )
    .catch((error: unknown) => {
      if (!(error instanceof RpcError)) throw error;
      throw new NegotiationError(`the server speaks neither era: initialize failed with ${error.message}`, { cause: error });
    });
  if (!isLegacyVersion(result.protocolVersion)) {
    throw new NegotiationError(`initialize answered unsupported protocol version ${JSON.stringify(result.protocolVersion)}`);
  }
  const version = result.protocolVersion as string;
  wire.setProtocol({ era: 'legacy', version });
  await wire.notify('notifications/initialized');
  return negotiated('legacy', version, result);
}

async function probe(wire: NegotiationWire, options: NegotiationOptions, timeoutMs: number): Promise<ProbeVerdict> {
  wire.setProtocol({ era: 'modern', version: MODERN_VERSION });
  const outcome = await wire
    .request('server/discover', { _meta: modernEnvelope(options.clientInfo, options.capabilities) }, timeoutMs)
    .then((result) => ({ result }), (error: unknown) => ({ error }));
  return judgeProbe(outcome, wire.transportKind);
}

/** Negotiates the era on a freshly opened transport. */
export async function negotiate(wire: NegotiationWire, options: NegotiationOptions): Promise<Negotiated> {
  if (options.era === 'legacy') return initialize(wire, options);
  const verdict = await probe(wire, options, options.probeTimeoutMs);
  if (verdict.kind === 'error') throw verdict.error;
  if (verdict.kind === 'modern') return negotiated('modern', MODERN_VERSION, verdict.result);
  if (options.era === 'modern') {
    // Pinned: an unanswered probe may be a modern server still starting up, so ask once more, patiently, before failing.
    const again = verdict.unanswered ? await probe(wire, options, options.requestTimeoutMs) : verdict;
    if (again.kind === 'error') throw again.error;
    if (again.kind === 'modern') return negotiated('modern', MODERN_VERSION, again.result);
    throw new NegotiationError(`era pinned to modern, but the server is legacy (${again.evidence})`);
  }
  try {
    return await initialize(wire, options);
  } catch (error) {
    // A probe that went unanswered may have met a modern server still starting up, which then refuses
    // initialize: ask once more, with the patience of an ordinary request.
    if (!verdict.unanswered || !(error instanceof NegotiationError)) throw error;
    const again = await probe(wire, options, options.requestTimeoutMs);
    if (again.kind !== 'modern') throw error;
    return negotiated('modern', MODERN_VERSION, again.result);
  }
}
