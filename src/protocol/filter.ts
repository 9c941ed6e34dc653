/**
 * The notification filter shared by `listen` (modern), notification
 * listeners (legacy) and the server's `subscriptions/listen`. Validation
 * happens before anything is sent, and a filter that fails it is a typed
 * FilterError naming the offending key.
 */
import { McpActorsError } from './errors.ts';
import { FILTER_BOOLEAN_KEYS, FILTER_LIST_KEYS, type NotificationFilter } from '../../machines/notification-filter.ts';

// The filter's shape and `isWithin` are pure, so the machines share them from machines/.
export type { NotificationFilter } from '../../machines/notification-filter.ts';
export { isWithin } from '../../machines/notification-filter.ts';

export type FilterProblem =
  | 'not_an_object'
  | 'unknown_key'
  | 'wrong_type'
  | 'malformed_uri'
  | 'duplicate_uri'
  | 'empty'
  | 'task_ids_unsupported'
  | 'too_many_uris';

/** A notification filter that fails validation, refused before anything is sent; `problem` says how and `key` names the offending key. */
export class FilterError extends McpActorsError {
  override readonly name = 'FilterError';
  readonly code = 'invalid_filter';
  constructor(/** What is wrong with the filter. */ readonly problem: FilterProblem, message: string, /** The filter key at fault, when one is. */ readonly key?: string) {
    super(message);
  }
}

const BOOLEAN_KEYS = FILTER_BOOLEAN_KEYS;
const LIST_KEYS = FILTER_LIST_KEYS;
const KNOWN_KEYS: ReadonlySet<string> = new Set([...BOOLEAN_KEYS, ...LIST_KEYS]);

export interface FilterRules {
  /** Whether `taskIds` may appear (the peer advertises the tasks extension). */
  allowTaskIds: boolean;
  /** Most URIs one filter may name. */
  maxUris?: number;
  /**
   * Reading what a server acknowledged rather than what a caller asks for:
   * keys this revision does not know are ignored and an empty filter (the
   * server honors nothing) is valid.
   */
  acknowledged?: boolean;
  /**
   * Ignore keys this revision does not know (a server reading a client's
   * filter: the schema allows extra properties) while still refusing an
   * empty filter.
   */
  ignoreUnknownKeys?: boolean;
}

/** A resource URI must parse as an absolute URI with a scheme. */
export const isResourceUri = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.trim() === value && URL.canParse(value);

function stringList(raw: unknown, key: string, checkUri: boolean): string[] {
  if (!Array.isArray(raw)) throw new FilterError('wrong_type', `${key} must be an array of strings`, key);
  const seen = new Set<string>();
  for (const item of raw) {
    if (typeof item !== 'string') throw new FilterError('wrong_type', `${key} must be an array of strings`, key);
    if (checkUri && !isResourceUri(item)) throw new FilterError('malformed_uri', `${key}: ${JSON.stringify(item)} is not a URI`, key);
    if (seen.has(item)) throw new FilterError('duplicate_uri', `${key}: ${JSON.stringify(item)} appears twice`, key);
    seen.add(item);
  }
  return [...seen];
}

/** Validates an untrusted filter and returns a normalized copy (only `true` booleans, non-empty lists). */
export function validateFilter(raw: unknown, rules: FilterRules): NotificationFilter {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new FilterError('not_an_object', 'the filter must be an object');
  }
  const input = raw as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!KNOWN_KEYS.has(key) && !rules.acknowledged && !rules.ignoreUnknownKeys) throw new FilterError('unknown_key', `unknown filter key ${JSON.stringify(key)}`, key);
  }
  const filter: NotificationFilter = {};
  for (const key of BOOLEAN_KEYS) {
    const value = input[key];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') throw new FilterError('wrong_type', `${key} must be a boolean`, key);
    if (value) filter[key] = true;
  }
  if (input.resourceSubscriptions !== undefined) {
    const uris = stringList(input.resourceSubscriptions, 'resourceSubscriptions', true);
    if (rules.maxUris !== undefined && uris.length > rules.maxUris) {
      throw new FilterError('too_many_uris', `resourceSubscriptions names ${uris.length} URIs; the limit is ${rules.maxUris}`, 'resourceSubscriptions');
    }
    if (uris.length > 0) filter.resourceSubscriptions = uris;
  }
  if (input.taskIds !== undefined) {
    if (!rules.allowTaskIds) throw new FilterError('task_ids_unsupported', 'taskIds needs a peer that advertises the tasks extension', 'taskIds');
    const ids = stringList(input.taskIds, 'taskIds', false);
    if (ids.length > 0) filter.taskIds = ids;
  }
  if (Object.keys(filter).length === 0 && !rules.acknowledged) throw new FilterError('empty', 'the filter selects no notifications');
  return filter;
}

export const LIST_CHANGED_METHODS = {
  toolsListChanged: 'notifications/tools/list_changed',
  promptsListChanged: 'notifications/prompts/list_changed',
  resourcesListChanged: 'notifications/resources/list_changed',
} as const;

export const RESOURCE_UPDATED = 'notifications/resources/updated';

/**
 * Whether a notification falls inside a filter. `params.uri` decides
 * `resources/updated`; task notifications match on `params.taskId`.
 */
export function filterAllows(filter: NotificationFilter, method: string, params: Record<string, unknown> | undefined): boolean {
  switch (method) {
    case LIST_CHANGED_METHODS.toolsListChanged:
      return filter.toolsListChanged === true;
    case LIST_CHANGED_METHODS.promptsListChanged:
      return filter.promptsListChanged === true;
    case LIST_CHANGED_METHODS.resourcesListChanged:
      return filter.resourcesListChanged === true;
    case RESOURCE_UPDATED: {
      const uri = params?.uri;
      return typeof uri === 'string' && filter.resourceSubscriptions?.includes(uri) === true;
    }
    default: {
      const taskId = params?.taskId;
      return typeof taskId === 'string' && filter.taskIds?.includes(taskId) === true;
    }
  }
}
