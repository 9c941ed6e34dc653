/**
 * Every page of a list, following `nextCursor` to the end. One loop for the
 * client's list helpers, the resync snapshot and the cache, so all three
 * stop the same way on a server that never stops handing out cursors.
 */
import { InvalidResultError, ListTooLongError, TooManyPagesError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';

/** Stops a server that hands out new cursors forever. */
export const MAX_PAGES = 10_000;

/**
 * Stops a server whose pages never end before they fill the heap: ten
 * thousand pages of a few hundred tools each (a server that ignores the
 * cursor and numbers its own) is gigabytes. Far above any real list: a
 * single page of 160,000 resources is listed whole.
 */
export const MAX_LIST_ITEMS = 1_000_000;

export type ListName = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

export const LIST_METHODS: Record<ListName, string> = {
  tools: 'tools/list',
  prompts: 'prompts/list',
  resources: 'resources/list',
  resourceTemplates: 'resources/templates/list',
};

/**
 * Collects the items of every page. `fetchPage` sends the list request with
 * the cursor (none for the first page); `onPage` sees each raw page, e.g.
 * for its `ttlMs`.
 */
export async function collectPages(
  list: ListName,
  fetchPage: (method: string, params: JsonObject) => Promise<JsonObject>,
  onPage?: (page: JsonObject) => void,
): Promise<JsonObject[]> {
  const method = LIST_METHODS[list];
  const items: JsonObject[] = [];
  // A cursor handed out twice would loop: the same pages again, forever or until the page limit.
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await fetchPage(method, cursor === undefined ? {} : { cursor });
    onPage?.(result);
    const found = result[list];
    // A page without its list is no empty page: reading it as one would report every item gone.
    if (!Array.isArray(found)) throw new InvalidResultError(method, list, 'an array', found);
    if (items.length + found.length > MAX_LIST_ITEMS) throw new ListTooLongError(method, MAX_LIST_ITEMS);
    // One by one: spreading a page of some 150,000 items into push() overflows the call stack.
    for (const item of found as JsonObject[]) items.push(item);
    cursor = typeof result.nextCursor === 'string' && result.nextCursor !== '' ? result.nextCursor : undefined;
    if (cursor === undefined) return items;
    if (cursors.has(cursor)) throw new InvalidResultError(method, 'nextCursor', 'a cursor this list has not handed out before', cursor);
    cursors.add(cursor);
  }
  throw new TooManyPagesError(method, MAX_PAGES);
}
