/**
 * fetchEntry pages through a list to its end and keeps the least fresh
 * page's ttl; the official server never paginates, so a recording stand-in
 * for the client's request method plays the paging server.
 */
import { describe, expect, it } from 'vitest';
import { fetchEntry } from '../../src/cache/cache-io.ts';
import type { JsonObject } from '../../src/protocol/jsonrpc.ts';

function pagedServer(pages: JsonObject[]) {
  const requests: { method: string; params: JsonObject | undefined }[] = [];
  return {
    requests,
    client: {
      request: async (method: string, params?: JsonObject) => {
        requests.push({ method, params });
        return pages[requests.length - 1]!;
      },
      readResource: async (uri: string) => ({ contents: [{ uri, text: 'body' }], ttlMs: 60_000, resultType: 'complete' }),
    },
  };
}

describe('fetchEntry', () => {
  it('follows nextCursor to the end and keeps the smallest ttl of the pages', async () => {
    const server = pagedServer([
      { tools: [{ name: 'a' }], nextCursor: 'p2', ttlMs: 5_000 },
      { tools: [{ name: 'b' }], nextCursor: 'p3', ttlMs: 7_000 },
      { tools: [{ name: 'c' }], ttlMs: 2_000 },
    ]);
    expect(await fetchEntry(server.client, 'tools')).toEqual({ value: [{ name: 'a' }, { name: 'b' }, { name: 'c' }], ttlMs: 2_000 });
    expect(server.requests).toEqual([
      { method: 'tools/list', params: {} },
      { method: 'tools/list', params: { cursor: 'p2' } },
      { method: 'tools/list', params: { cursor: 'p3' } },
    ]);
  });

  it('has no ttl when one page gives none or a negative one: absent means 0, never fresh', async () => {
    const absent = pagedServer([
      { tools: [{ name: 'a' }], nextCursor: 'p2', ttlMs: 5_000 },
      { tools: [{ name: 'b' }] },
    ]);
    expect(await fetchEntry(absent.client, 'tools')).toEqual({ value: [{ name: 'a' }, { name: 'b' }], ttlMs: undefined });
    const negative = pagedServer([
      { prompts: [{ name: 'a' }], nextCursor: 'p2', ttlMs: -1 },
      { prompts: [{ name: 'b' }], ttlMs: 5_000 },
    ]);
    expect(await fetchEntry(negative.client, 'prompts')).toEqual({ value: [{ name: 'a' }, { name: 'b' }], ttlMs: undefined });
  });

  it('has no ttl when no page gives one, and reads a resource with its ttl', async () => {
    const server = pagedServer([{ prompts: [{ name: 'greeting' }] }]);
    expect(await fetchEntry(server.client, 'prompts')).toEqual({ value: [{ name: 'greeting' }], ttlMs: undefined });
    expect(await fetchEntry(server.client, 'resource:test://resource/1')).toMatchObject({
      value: { contents: [{ uri: 'test://resource/1', text: 'body' }] },
      ttlMs: 60_000,
    });
  });
});
