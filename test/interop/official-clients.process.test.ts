/**
 * Interop matrix, direction A: every official client against our server
 * (`createServer`, the fixture of test/fixtures/own-server-setup.ts), over
 * stdio (a child process) and loopback HTTP, with each client's own result
 * validation on. Columns: `@modelcontextprotocol/client` 2.4.0 modern and
 * legacy, `@modelcontextprotocol/sdk` 1.32.2 (legacy). The MCP Inspector's
 * CLI is in inspector-cli.process.test.ts; the other direction in our-client.process.test.ts.
 *
 * The server hands out one item per page, so every list but the empty one
 * takes several pages; each client walks them its own way. The fixture
 * defines no resource templates, so an empty templates/list is what is
 * checked here (test/server/templates-completions.process.test.ts has them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import { buildFixtureServer, FIXTURE_URIS, MEASURE_OUTPUT_SCHEMA } from '../fixtures/own-server-setup.ts';
import { PROMPTS_CHANGED, RESOURCE_UPDATED, RESOURCES_CHANGED, TOOLS_CHANGED } from '../server/official-peers.ts';
import { CLIENT_KINDS, closeAllClients, LISTS, OWN_FIXTURE_LISTS as EXPECTED, type ClientPeer, type Where } from './official-clients.ts';

const PAGE_SIZE = 1;
/** Each cell spawns a client and (over stdio) a server process on two shared cores. */
const PEER_TIMEOUT = 60_000;
const [WATCHED, OTHER] = [FIXTURE_URIS[0]!, FIXTURE_URIS[1]!];

const CELLS = CLIENT_KINDS.flatMap((kind) => (['stdio', 'http'] as const).map((transport) => [kind.name, transport, kind] as const));

describe.each(CELLS)('%s against our server over %s', (_name, transport, kind) => {
  // One connection per cell (over stdio, one server child): the tests only list, read and call before the last one
  // watches, and that one's "nothing else" then covers everything the connection saw since it was made.
  let server: McpServer | undefined;
  let peer: ClientPeer;
  beforeAll(async () => {
    let where: Where;
    if (transport === 'stdio') {
      where = { transport, args: ['--page-size', String(PAGE_SIZE)] };
    } else {
      server = buildFixtureServer({ pageSize: PAGE_SIZE });
      where = { transport, url: (await server.listenHttp({ port: 0 })).url };
    }
    peer = await kind.connect(where);
  }, PEER_TIMEOUT);
  afterAll(async () => {
    await closeAllClients();
    await server?.close();
    server = undefined;
  });

  it('negotiates its era and lists tools, prompts, resources and templates page by page', { timeout: PEER_TIMEOUT }, async () => {
    if (kind.name.startsWith('@modelcontextprotocol/client')) {
      expect(peer.protocolVersion).toBe(kind.era === 'modern' ? '2026-07-28' : '2025-11-25');
    }
    for (const list of LISTS) {
      const { keys, pages } = await peer.list(list);
      expect({ list, keys, pages }).toEqual({ list, keys: EXPECTED[list], pages: Math.max(1, EXPECTED[list].length / PAGE_SIZE) });
    }
  });

  it('reads a resource and calls a tool', { timeout: PEER_TIMEOUT }, async () => {
    expect(await peer.read(OTHER)).toBe(`content of ${OTHER}`);
    expect(await peer.call('echo', { text: 'hello across' })).toBe('hello across');
  });

  // The modern client adds its envelope beside the caller's keys; the handler's `context.meta` has the caller's.
  it("hands a call's _meta (trace context, a vendor's key) to the handler's context.meta", { timeout: PEER_TIMEOUT }, async () => {
    const meta = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01', 'com.example/tenant': 'acme' };
    expect(JSON.parse((await peer.callForResult('request-meta', {}, meta)).text)).toEqual(meta);
  });

  // Each client checks a structured result against the outputSchema it listed (the sdk 1.x client, the schemas of
  // the last page it listed: here the page with the tool) and throws when it does not fit.
  it('lists the outputSchema of a tool and takes its structured result, checked against it', { timeout: PEER_TIMEOUT }, async () => {
    expect(await peer.listedTool('measure')).toMatchObject({ outputSchema: MEASURE_OUTPUT_SCHEMA });
    expect(await peer.callForResult('measure', { text: 'across' })).toEqual({
      text: JSON.stringify({ length: 6, upper: 'ACROSS' }),
      structuredContent: { length: 6, upper: 'ACROSS' },
      isError: false,
    });
  });

  it('gets a tool error, not content its client refuses, when a handler breaks its outputSchema', { timeout: PEER_TIMEOUT }, async () => {
    await peer.listedTool('measure');
    const outcome = await peer.callForResult('measure', { text: 'across', wrong: true });
    expect(outcome).toMatchObject({ isError: true, structuredContent: undefined });
    expect(outcome.text).toMatch(/structured content.*measure/i);
  });

  it('receives every list change and the updates of the resource it watches, and nothing else', { timeout: PEER_TIMEOUT }, async () => {
    await peer.watch(WATCHED);
    await peer.call('emit', { kind: 'updated', uri: OTHER });
    await peer.call('emit', { kind: 'updated', uri: WATCHED });
    for (const list of ['tools', 'prompts', 'resources']) await peer.call('emit', { kind: list });
    // The resources list change is the last one sent: whatever else came is on the log before it.
    await peer.changes.waitFor(RESOURCES_CHANGED);
    expect(peer.changes.seen.map(({ method, params }) => (params.uri === undefined ? method : `${method} ${String(params.uri)}`))).toEqual([
      `${RESOURCE_UPDATED} ${WATCHED}`,
      TOOLS_CHANGED,
      PROMPTS_CHANGED,
      RESOURCES_CHANGED,
    ]);
  });
});
