/**
 * Which cache entries a change touches. A list change invalidates only that
 * list and a `resources/updated` only that URI's contents, so a store never
 * clears unrelated data; a filter maps to every entry it keeps current, which
 * is what an interrupted stream leaves uncovered (`cache.invalidate`).
 */
import type { ListName } from '../client/pages.ts';
import { LIST_CHANGED_METHODS, RESOURCE_UPDATED, type NotificationFilter } from '../protocol/filter.ts';

/** The lists the cache holds: every paged list but resource templates, which no interest names. */
export type CachedList = Exclude<ListName, 'resourceTemplates'>;

/** One cached thing: a whole list, or the contents read from one resource URI. */
export type EntryKey = CachedList | `resource:${string}`;

export const resourceEntry = (uri: string): EntryKey => `resource:${uri}`;

const LISTS: ReadonlyArray<readonly [CachedList, keyof typeof LIST_CHANGED_METHODS]> = [
  ['tools', 'toolsListChanged'],
  ['prompts', 'promptsListChanged'],
  ['resources', 'resourcesListChanged'],
];

/** The entries one notification makes invalid; none for methods the cache does not hold. */
export function entriesChangedBy(method: string, params: Record<string, unknown> | undefined): EntryKey[] {
  for (const [list, key] of LISTS) if (method === LIST_CHANGED_METHODS[key]) return [list];
  if (method === RESOURCE_UPDATED && typeof params?.uri === 'string') return [resourceEntry(params.uri)];
  return [];
}

/** The entries a stream with `filter` keeps current. */
export function entriesCoveredBy(filter: NotificationFilter): EntryKey[] {
  const keys: EntryKey[] = LISTS.filter(([, key]) => filter[key] === true).map(([list]) => list);
  for (const uri of filter.resourceSubscriptions ?? []) keys.push(resourceEntry(uri));
  return keys;
}
