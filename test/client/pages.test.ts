/**
 * collectPages stops a server whose cursors never end: the page limit and
 * the item limit, each reached by a playing server that numbers its own
 * cursors (no real server does that on cue), with the request count showing
 * where it stopped.
 */
import { describe, expect, it } from 'vitest';
import { collectPages, MAX_LIST_ITEMS, MAX_PAGES } from '../../src/client/pages.ts';
import { ListTooLongError, TooManyPagesError } from '../../src/protocol/errors.ts';
import type { JsonObject } from '../../src/protocol/jsonrpc.ts';

/** A server that answers every page with `perPage` tools and a new cursor. */
function endlessServer(perPage: number) {
  let requests = 0;
  const page = Array.from({ length: perPage }, (_, index) => ({ name: `tool-${index}` }));
  return {
    requests: () => requests,
    fetchPage: async (_method: string, _params: JsonObject): Promise<JsonObject> => ({ tools: page, nextCursor: `page-${++requests}` }),
  };
}

describe('collectPages on a server that never ends its list', () => {
  it(`fails with TooManyPagesError after ${MAX_PAGES} pages of new cursors`, async () => {
    const server = endlessServer(1);
    const error = await collectPages('tools', server.fetchPage).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TooManyPagesError);
    expect(error).toMatchObject({ code: 'too_many_pages', method: 'tools/list', maxPages: MAX_PAGES });
    expect(server.requests()).toBe(MAX_PAGES);
  });

  it(`fails with ListTooLongError before holding more than ${MAX_LIST_ITEMS} items`, async () => {
    const server = endlessServer(300);
    const error = await collectPages('tools', server.fetchPage).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ListTooLongError);
    expect(error).toMatchObject({ code: 'list_too_long', method: 'tools/list', maxItems: MAX_LIST_ITEMS });
    // The page that would pass the limit is the last one asked for.
    expect(server.requests()).toBe(Math.floor(MAX_LIST_ITEMS / 300) + 1);
  });

  it('a list of exactly the item limit is collected whole', async () => {
    let requests = 0;
    const page = Array.from({ length: MAX_LIST_ITEMS / 4 }, () => ({ name: 't' }));
    const items = await collectPages('tools', async () => (++requests < 4 ? { tools: page, nextCursor: `c${requests}` } : { tools: page }));
    expect(items).toHaveLength(MAX_LIST_ITEMS);
  });
});
