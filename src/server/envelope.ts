/**
 * The modern-era per-request `_meta` envelope: checked on every request
 * before its method runs.
 */
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { MetaKey, MODERN_VERSION } from '../protocol/versions.ts';
import { InvalidEnvelopeError, UnsupportedVersionError } from './errors.ts';
import { isLogLevel, type LogLevel } from '../protocol/log-level.ts';
import { isJsonObject } from './json-values.ts';

export const SUPPORTED_MODERN_VERSIONS = [MODERN_VERSION];

export interface Envelope {
  clientCapabilities: Record<string, unknown>;
  logLevel: LogLevel | undefined;
  progressToken: string | number | undefined;
}

/** True when a message claims the modern era by carrying a protocol version in `_meta`. */
export const claimsModern = (params: JsonObject | undefined): boolean =>
  isJsonObject(params?._meta) && (params._meta as JsonObject)[MetaKey.protocolVersion] !== undefined;

/**
 * The era a connection's opening request selects, the same on every
 * transport: an `initialize` without the modern envelope opens the legacy
 * era; `server/discover` or any request carrying the envelope, the modern
 * one; anything else selects none.
 */
export function eraOfOpening(request: { method: string; params?: JsonObject }): 'legacy' | 'modern' | undefined {
  const modern = claimsModern(request.params);
  if (request.method === 'initialize' && !modern) return 'legacy';
  if (request.method === 'server/discover' || modern) return 'modern';
  return undefined;
}

export function readEnvelope(params: JsonObject | undefined): Envelope {
  const meta = params?._meta;
  if (!isJsonObject(meta)) throw new InvalidEnvelopeError('Invalid params: _meta with the request envelope is required');
  const version = meta[MetaKey.protocolVersion];
  if (typeof version !== 'string') throw new InvalidEnvelopeError(`Invalid params: _meta["${MetaKey.protocolVersion}"] is required`);
  if (!SUPPORTED_MODERN_VERSIONS.includes(version)) throw new UnsupportedVersionError(version, SUPPORTED_MODERN_VERSIONS);
  const clientCapabilities = meta[MetaKey.clientCapabilities];
  if (!isJsonObject(clientCapabilities)) {
    throw new InvalidEnvelopeError(`Invalid params: _meta["${MetaKey.clientCapabilities}"] must be an object`);
  }
  const logLevel = meta[MetaKey.logLevel];
  if (logLevel !== undefined && !isLogLevel(logLevel)) {
    throw new InvalidEnvelopeError(`Invalid params: _meta["${MetaKey.logLevel}"] is not a log level`);
  }
  const token = meta.progressToken;
  return {
    clientCapabilities,
    logLevel,
    progressToken: typeof token === 'string' || typeof token === 'number' ? token : undefined,
  };
}
