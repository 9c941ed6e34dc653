/**
 * Every page of a list, following `nextCursor` to the end. One loop for the
 * client's list helpers, the resync snapshot and the cache, so all three
 * stop the same way on a server that never stops handing out cursors.
 */
import { TooManyPagesError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';

/** Stops a server that hands out the same cursor forever. */
export const MAX_PAGES = 10_000;

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
  const items: JsonObject[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await fetchPage(LIST_METHODS[list], cursor === undefined ? {} : { cursor });
    onPage?.(result);
    const found = result[list];
    // One by one: spreading a page of some 150,000 items into push() overflows the call stack.
    if (Array.isArray(found)) for (const item of found as JsonObject[]) items.push(item);
    cursor = typeof result.nextCursor === 'string' && result.nextCursor !== '' ? result.nextCursor : undefined;
    if (cursor === undefined) return items;
  }
  throw new TooManyPagesError(LIST_METHODS[list], MAX_PAGES);
}
