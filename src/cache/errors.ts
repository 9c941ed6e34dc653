/** The change cache's local failures, one class per condition. */
import { McpActorsError } from '../protocol/errors.ts';
import type { EntryKey } from './entries.ts';

/** A `wait` read whose refetch did not finish within its timeout. */
export class CacheReadTimeoutError extends McpActorsError {
  override readonly name = 'CacheReadTimeoutError';
  readonly code = 'cache_read_timeout';
  constructor(/** The entry that was read. */ readonly key: EntryKey, /** How long the read waited. */ readonly timeoutMs: number) {
    super(`${key} was not refetched within ${timeoutMs} ms`);
  }
}

/** A read of something the interest set does not name: the cache never fetches it. */
export class NotInInterestError extends McpActorsError {
  override readonly name = 'NotInInterestError';
  readonly code = 'not_in_interest';
  constructor(/** The entry that was read. */ readonly key: EntryKey) {
    super(`${key} is not in the cache's interest set`);
  }
}

/** A read that needs a fetch, on an entry whose last fetch failed and that holds no value. */
export class CacheFetchFailedError extends McpActorsError {
  override readonly name = 'CacheFetchFailedError';
  readonly code = 'cache_fetch_failed';
  constructor(/** The entry whose fetch failed (the failure is the `cause`). */ readonly key: EntryKey, cause: unknown) {
    super(`fetching ${key} failed`, { cause });
  }
}

/** A read on a closed cache, or one that was waiting when the cache closed. */
export class CacheClosedError extends McpActorsError {
  override readonly name = 'CacheClosedError';
  readonly code = 'cache_closed';
  constructor(/** The entry that was read. */ readonly key: EntryKey) {
    super(`the cache closed before ${key} could be read`);
  }
}

/** An interest set (from code or configuration) that is not one: what is wrong, before anything is opened. */
export class InvalidInterestError extends McpActorsError {
  override readonly name = 'InvalidInterestError';
  readonly code = 'invalid_interest';
  constructor(/** What is wrong: not an object, an unknown key, a value of the wrong type, or a malformed URI. */ readonly problem: 'not_an_object' | 'unknown_key' | 'wrong_type' | 'malformed_uri', message: string) {
    super(`invalid interest: ${message}`);
  }
}

/** The timeout options of `createChangeCache`, each checked at creation. */
export type CacheTimeoutOption = 'readTimeoutMs' | 'negotiationTimeoutMs' | 'ackTimeoutMs';

/** A `createChangeCache` timeout option that is not a positive finite number of milliseconds: refused before anything is opened. */
export class InvalidCacheOptionError extends McpActorsError {
  override readonly name = 'InvalidCacheOptionError';
  readonly code = 'invalid_cache_option';
  constructor(/** The option that is wrong. */ readonly option: CacheTimeoutOption, /** The value given. */ readonly value: unknown) {
    super(`invalid ${option}: ${String(value)} is not a positive number of milliseconds`);
  }
}
