/**
 * Caching hints (2026-07-28 caching page): `ttlMs` and `cacheScope` on every
 * cacheable modern result. Resolved once per server from `createServer({ caching })`
 * over the defaults below; a resource (or resource template) may override the hints of its own
 * `resources/read`. Legacy results carry none (the routers decide that).
 */
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { InvalidCachingError } from './definition-errors.ts';
import type { Registry } from './registry.ts';
import { readCaching } from './resource-templates.ts';

/** Who may reuse a cached result: any caller (`public`) or only the same authorization context (`private`). */
export type CacheScope = 'public' | 'private';

/** The caching hints one cacheable result carries. */
export interface CacheHint {
  /** How long, in milliseconds, a client may take the result as fresh; an integer >= 0. */
  ttlMs: number;
  /** Who may reuse the result. */
  cacheScope: CacheScope;
}

/** The cacheable results, by what they answer. */
export type CacheableResult = 'discover' | 'tools' | 'prompts' | 'resources' | 'resourceTemplates' | 'read';

/**
 * `createServer({ caching })`: `ttlMs` and `cacheScope` at the top apply to
 * every cacheable result; a per-result entry overrides them for that result
 * (every page of a list gets the same hints). `read` is every
 * `resources/read`, which a resource's own `caching` overrides in turn.
 */
export interface CachingOptions extends Partial<CacheHint> {
  /** Hints on `server/discover` results. */
  discover?: Partial<CacheHint>;
  /** Hints on `tools/list` pages. */
  tools?: Partial<CacheHint>;
  /** Hints on `prompts/list` pages. */
  prompts?: Partial<CacheHint>;
  /** Hints on `resources/list` pages. */
  resources?: Partial<CacheHint>;
  /** Hints on `resources/templates/list` pages. */
  resourceTemplates?: Partial<CacheHint>;
  /** Hints on every `resources/read` (a resource's own `caching` overrides them). */
  read?: Partial<CacheHint>;
}

/**
 * The defaults, for a server that also delivers change notifications: a
 * listening client drops a list the moment it changes, so a minute of
 * freshness only saves the others round trips, and the lists are the same
 * for every caller (`public`). Resource contents change with their data and
 * may be the caller's own, and an update reaches only clients subscribed to
 * that URI: `0` and `private`.
 */
export const DEFAULT_CACHING: Readonly<Record<CacheableResult, Readonly<CacheHint>>> = {
  discover: { ttlMs: 60_000, cacheScope: 'public' },
  tools: { ttlMs: 60_000, cacheScope: 'public' },
  prompts: { ttlMs: 60_000, cacheScope: 'public' },
  resources: { ttlMs: 60_000, cacheScope: 'public' },
  resourceTemplates: { ttlMs: 60_000, cacheScope: 'public' },
  read: { ttlMs: 0, cacheScope: 'private' },
};

const RESULTS = Object.keys(DEFAULT_CACHING) as CacheableResult[];

const CACHEABLE_METHODS: Readonly<Record<string, CacheableResult>> = {
  'server/discover': 'discover',
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'resources/read': 'read',
};

/**
 * Checks hints given by the server's author; throws InvalidCachingError
 * naming `path`. Safe integers only: clients validate `ttlMs` as an integer.
 */
export function checkCacheHint(raw: unknown, path: string): Partial<CacheHint> {
  if (raw === undefined) return {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new InvalidCachingError(path, 'must be an object');
  const { ttlMs, cacheScope } = raw as Record<string, unknown>;
  const hint: Partial<CacheHint> = {};
  if (ttlMs !== undefined) {
    if (typeof ttlMs !== 'number' || !Number.isSafeInteger(ttlMs) || ttlMs < 0) {
      throw new InvalidCachingError(`${path}.ttlMs`, `must be an integer >= 0 (milliseconds), got ${JSON.stringify(ttlMs)}`);
    }
    hint.ttlMs = ttlMs;
  }
  if (cacheScope !== undefined) {
    if (cacheScope !== 'public' && cacheScope !== 'private') {
      throw new InvalidCachingError(`${path}.cacheScope`, `must be 'public' or 'private', got ${JSON.stringify(cacheScope)}`);
    }
    hint.cacheScope = cacheScope;
  }
  return hint;
}

/** The hints of each cacheable result: defaults, then the top level, then the result's own entry. */
export function resolveCaching(options: CachingOptions | undefined): Record<CacheableResult, CacheHint> {
  const everywhere = checkCacheHint(options, 'caching');
  const resolved = {} as Record<CacheableResult, CacheHint>;
  for (const result of RESULTS) {
    resolved[result] = { ...DEFAULT_CACHING[result], ...everywhere, ...checkCacheHint(options?.[result], `caching.${result}`) };
  }
  return resolved;
}

/**
 * The hints a modern result of `method` carries, or undefined when the
 * method's results are not cacheable. A `resources/read` takes the
 * resource's own hints over the server's.
 */
export function cacheHintFor(
  hints: Readonly<Record<CacheableResult, CacheHint>>,
  registry: Registry,
  method: string,
  params: JsonObject | undefined,
): CacheHint | undefined {
  const result = CACHEABLE_METHODS[method];
  if (result === undefined) return undefined;
  if (result !== 'read' || typeof params?.uri !== 'string') return hints[result];
  return { ...hints.read, ...readCaching(registry, params.uri) };
}
