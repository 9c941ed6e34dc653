/**
 * The official clients as peers of our server, behind one small interface so
 * the interop matrix (official-clients.process.test.ts) runs the same steps against
 * each: `@modelcontextprotocol/client` 2.4.0 in modern and in legacy mode
 * (through test/server/official-peers.ts) and `@modelcontextprotocol/sdk`
 * 1.32.2's client. Every result goes through the client's own schema
 * validation; nothing here bypasses it.
 */
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as SdkStdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as SdkHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/client';
import { FIXTURE_URIS } from '../fixtures/own-server-setup.ts';
import { fixtureBundle } from '../setup/fixture-bundle.ts';
import {
  ALL_CHANGES,
  closeAllPeers,
  connectHttp,
  connectStdio,
  NotificationLog,
  PROMPTS_CHANGED,
  RESOURCE_UPDATED,
  RESOURCES_CHANGED,
  STDIO_FIXTURE,
  TOOLS_CHANGED,
  wire,
  type Era,
} from '../server/official-peers.ts';

/** The four lists of a server. */
export type ListName = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

/** What our fixture server (own-server-setup.ts) lists, in its order (by key). */
export const OWN_FIXTURE_LISTS: Readonly<Record<ListName, readonly string[]>> = {
  tools: [
    'connect-calendar', 'echo', 'emit', 'finish-sign-in', 'log', 'measure', 'progress', 'request-meta', 'shutdown', 'slow', 'stats',
    'test_logging_tool', 'test_missing_capability', 'test_simple_text', 'test_streaming_elicitation',
    'test_trigger_prompt_change', 'test_trigger_tool_change',
  ],
  prompts: ['greeting', 'test_simple_prompt'],
  resources: [...FIXTURE_URIS, 'test://watched-resource'],
  resourceTemplates: [],
};

/** The four lists, in the order the matrix walks them. */
export const LISTS = Object.keys(OWN_FIXTURE_LISTS) as ListName[];

/** Where our server is: the stdio fixture spawned with these flags, or an HTTP endpoint. */
export type Where = { transport: 'stdio'; args: string[] } | { transport: 'http'; url: string };

/** One list as a client saw it: each item's key (name, URI or URI template) and how many pages the walk took. */
export interface ListedPages {
  keys: string[];
  pages: number;
}

/** One connected official client, driven the same way whatever its library and era. */
export interface ClientPeer {
  /** The protocol version the connection settled on, where the client tells it. */
  readonly protocolVersion: string | undefined;
  /** Every change notification the client received, in order. */
  readonly changes: NotificationLog;
  /** Every item of a list, following `nextCursor` to the end. */
  list(list: ListName): Promise<ListedPages>;
  /** The text of the first content of a resource. */
  read(uri: string): Promise<string>;
  /** The text of the first content block of a tool result. */
  call(name: string, args: Record<string, unknown>): Promise<string>;
  /** A tool call's whole result, as the client's own checks (of structured content, say) let it through; `meta` is its `_meta`. */
  callForResult(name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<CallOutcome>;
  /** The tool named `name` as the client lists it (every page walked). */
  listedTool(name: string): Promise<ListedTool | undefined>;
  /**
   * Asks for every list change and for updates of `uri`: modern, one listen
   * stream naming all of them; legacy, resources/subscribe for `uri` (list
   * changes arrive unsolicited).
   */
  watch(uri: string): Promise<void>;
}

/** What a client hands over of a tool result. */
export interface CallOutcome {
  /** The first content block's text. */
  text: string;
  structuredContent: unknown;
  isError: boolean;
}

/** A listed tool, as far as these tests look at it. */
export interface ListedTool {
  name: string;
  outputSchema?: unknown;
}

type ToolResultShape = { content?: unknown; structuredContent?: unknown; isError?: boolean };

const outcomeOf = (result: ToolResultShape): CallOutcome => ({
  text: firstText((result.content ?? []) as unknown[]),
  structuredContent: result.structuredContent,
  isError: result.isError === true,
});

/** One column of the matrix: a client library in one era. */
export interface ClientKind {
  readonly name: string;
  readonly era: Era;
  connect(where: Where): Promise<ClientPeer>;
}

/** An item of any list, as far as these tests read it (a tool's `outputSchema` too). */
type ListedItem = { name?: string; uri?: string; uriTemplate?: string; outputSchema?: unknown };

const keyOf = (item: ListedItem, list: ListName): string =>
  (list === 'resources' ? item.uri : list === 'resourceTemplates' ? item.uriTemplate : item.name) ?? '';

const firstText = (blocks: readonly unknown[]): string => (blocks[0] as { text?: string } | undefined)?.text ?? '';

/** The official client 2.4.0: its list helpers walk every page themselves, so pages are counted at the wire. */
function officialPeer(client: Client): ClientPeer {
  const lists = {
    tools: () => client.listTools(),
    prompts: () => client.listPrompts(),
    resources: () => client.listResources(),
    resourceTemplates: () => client.listResourceTemplates(),
  } as const;
  const callForResult = async (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
    outcomeOf(await client.callTool({ name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) }));
  return {
    protocolVersion: client.getNegotiatedProtocolVersion(),
    changes: new NotificationLog(client, ALL_CHANGES),
    async list(list) {
      const before = wire(client).length;
      const result = (await lists[list]()) as unknown as Record<ListName, ListedItem[]>;
      const pages = wire(client)
        .slice(before)
        .filter((message) => Array.isArray((message.result as Record<string, unknown> | undefined)?.[list])).length;
      return { keys: result[list].map((item) => keyOf(item, list)), pages };
    },
    read: async (uri) => firstText((await client.readResource({ uri })).contents),
    call: async (name, args) => (await callForResult(name, args)).text,
    callForResult,
    listedTool: async (name) => (await client.listTools()).tools.find((tool) => tool.name === name),
    async watch(uri) {
      if (client.getProtocolEra() === 'legacy') await client.subscribeResource({ uri });
      else await client.listen({ toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: [uri] });
    },
  };
}

const officialKind = (era: Era): ClientKind => ({
  name: `@modelcontextprotocol/client 2.4.0, ${era}`,
  era,
  connect: async (where) =>
    officialPeer(where.transport === 'stdio' ? await connectStdio(era, where.args) : await connectHttp(era, where.url)),
});

const sdkClients = new Set<SdkClient>();

/** The sdk 1.32.2 client: its list helpers fetch one page, so the walk is the caller's, as its users write it. */
async function connectSdk(where: Where): Promise<ClientPeer> {
  const client = new SdkClient({ name: 'sdk-1-client', version: '1.0.0' });
  const changes = new NotificationLog(undefined, []);
  const schemas = [
    [TOOLS_CHANGED, ToolListChangedNotificationSchema],
    [PROMPTS_CHANGED, PromptListChangedNotificationSchema],
    [RESOURCES_CHANGED, ResourceListChangedNotificationSchema],
    [RESOURCE_UPDATED, ResourceUpdatedNotificationSchema],
  ] as const;
  for (const [method, schema] of schemas) {
    client.setNotificationHandler(schema, (notification: { params?: Record<string, unknown> }) =>
      changes.record(method, { ...(notification.params ?? {}) }));
  }
  const transport =
    where.transport === 'stdio'
      ? new SdkStdioTransport({ command: process.execPath, args: [fixtureBundle(STDIO_FIXTURE), ...where.args], stderr: 'inherit' })
      : new SdkHttpTransport(new URL(where.url));
  sdkClients.add(client);
  await client.connect(transport);
  const page = (list: ListName, cursor: string | undefined) => {
    const params = cursor === undefined ? undefined : { cursor };
    if (list === 'tools') return client.listTools(params);
    if (list === 'prompts') return client.listPrompts(params);
    if (list === 'resources') return client.listResources(params);
    return client.listResourceTemplates(params);
  };
  /** Each page's items, fetched as the caller goes on: one that stops early fetches no further page. */
  async function* pages(list: ListName): AsyncGenerator<ListedItem[]> {
    let cursor: string | undefined;
    do {
      const result = (await page(list, cursor)) as unknown as Record<string, unknown> & { nextCursor?: string };
      yield result[list] as ListedItem[];
      cursor = result.nextCursor;
    } while (cursor !== undefined);
  }
  const callForResult = async (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
    outcomeOf((await client.callTool({ name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) })) as ToolResultShape);
  return {
    // The sdk 1.x client keeps the negotiated version to itself.
    protocolVersion: undefined,
    changes,
    async list(list) {
      const keys: string[] = [];
      let count = 0;
      for await (const items of pages(list)) {
        count++;
        keys.push(...items.map((item) => keyOf(item, list)));
      }
      return { keys, pages: count };
    },
    read: async (uri) => firstText((await client.readResource({ uri })).contents),
    call: async (name, args) => (await callForResult(name, args)).text,
    callForResult,
    async listedTool(name) {
      for await (const items of pages('tools')) {
        const found = items.find((item) => item.name === name);
        if (found) return found as ListedTool;
      }
      return undefined;
    },
    watch: async (uri) => void (await client.subscribeResource({ uri })),
  };
}

/** Every official client of the matrix. */
export const CLIENT_KINDS: readonly ClientKind[] = [
  officialKind('modern'),
  officialKind('legacy'),
  { name: '@modelcontextprotocol/sdk 1.32.2', era: 'legacy', connect: connectSdk },
];

/** Closes every client made here (and its stdio child). */
export async function closeAllClients(): Promise<void> {
  const sdk = [...sdkClients];
  sdkClients.clear();
  await Promise.all([closeAllPeers(), ...sdk.map((client) => client.close().catch(() => {}))]);
}
