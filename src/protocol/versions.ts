/** Protocol revisions, eras and the `_meta` keys of the 2026-07-28 envelope. */
import type { Era, EraPreference } from '../../machines/era.ts';

/** The protocol version of the modern era. */
export const MODERN_VERSION = '2026-07-28';
/** The newest legacy-era protocol version, the one a legacy client offers first. */
export const LATEST_LEGACY_VERSION = '2025-11-25';
export const LEGACY_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;

export type { Era, EraPreference };

export const isLegacyVersion = (version: unknown): boolean =>
  typeof version === 'string' && (LEGACY_VERSIONS as readonly string[]).includes(version);

/** The revisions whose peers receive JSON-RPC batches: 2025-03-26 requires it (of JSON-RPC 2.0), 2025-06-18 removed them. */
export const acceptsBatches = (version: string | undefined): boolean => version === '2024-11-05' || version === '2025-03-26';

export const MetaKey = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

export interface Implementation {
  name: string;
  version: string;
  [key: string]: unknown;
}

/** The part of a server's capabilities this project acts on; other keys pass through. */
export interface ServerCapabilities {
  tools?: { listChanged?: boolean };
  prompts?: { listChanged?: boolean };
  resources?: { listChanged?: boolean; subscribe?: boolean };
  logging?: object;
  extensions?: Record<string, object>;
  [key: string]: unknown;
}

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
