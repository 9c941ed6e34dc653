/**
 * The official @modelcontextprotocol/client 2.x as the peer of our server:
 * connected over stdio to the own-server fixture in a child process, or over
 * loopback HTTP. Every client made here is closed by `closeAllPeers()` (or
 * `closePeersExcept`).
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fileURLToPath } from 'node:url';
import { fixtureBundle } from '../setup/fixture-bundle.ts';

export const STDIO_FIXTURE = fileURLToPath(new URL('../fixtures/own-server-stdio.ts', import.meta.url));

export type Era = 'legacy' | 'modern';

const open = new Set<Client>();
const inbound = new Map<Client, Record<string, unknown>[]>();

/**
 * Every message the client's transport received, in order. Read at the wire
 * because the official client dispatches notifications a microtask after
 * responses, so a progress notification that arrives in the same read as its
 * response never reaches `onprogress` (a client-side race, not a server one).
 */
export const wire = (client: Client): Record<string, unknown>[] => inbound.get(client) ?? [];

function tap(client: Client, transport: { onmessage?: ((message: never, extra?: never) => void) | undefined }): void {
  const messages: Record<string, unknown>[] = [];
  inbound.set(client, messages);
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    messages.push(message as Record<string, unknown>);
    deliver?.(message, extra);
  };
}

export function newClient(era: Era, name = 'test-client'): Client {
  const client = new Client(
    { name, version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  open.add(client);
  return client;
}

/** Connects to a fixture server started as a stdio child: the own-server fixture unless `fixture` names another. */
export async function connectStdio(era: Era, fixtureArgs: string[] = [], fixture = STDIO_FIXTURE): Promise<Client> {
  const client = newClient(era);
  const transport = new StdioClientTransport({ command: process.execPath, args: [fixtureBundle(fixture), ...fixtureArgs], stderr: 'inherit' });
  await client.connect(transport);
  tap(client, transport as never);
  return client;
}

export async function connectHttp(era: Era, url: string, name?: string): Promise<Client> {
  const client = newClient(era, name);
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  tap(client, transport as never);
  return client;
}

export const closeAllPeers = (): Promise<void> => closePeersExcept(new Set());

/** Closes every client made here but `kept` (one that several tests of a file share, closed after the last of them). */
export async function closePeersExcept(kept: ReadonlySet<Client>): Promise<void> {
  const clients = [...open].filter((client) => !kept.has(client));
  for (const client of clients) {
    open.delete(client);
    inbound.delete(client);
  }
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
}

/** Records every notification of the given methods, in arrival order, and lets a test wait for one. */
export class NotificationLog {
  readonly seen: { method: string; params: Record<string, unknown> }[] = [];
  private waiters: { match: (method: string, params: Record<string, unknown>) => boolean; resolve: () => void }[] = [];

  /** Registers a handler per method on an official 2.x client; without one, `record` is fed by hand (e.g. from an sdk 1.x client). */
  constructor(client: Client | undefined, methods: string[]) {
    for (const method of methods) {
      client?.setNotificationHandler(method as 'notifications/tools/list_changed', (notification: { params?: unknown }) =>
        this.record(method, (notification.params ?? {}) as Record<string, unknown>));
    }
  }

  /** Adds one notification and wakes whoever waits for it. */
  record(method: string, params: Record<string, unknown>): void {
    this.seen.push({ method, params });
    this.waiters = this.waiters.filter((waiter) => {
      if (!waiter.match(method, params)) return true;
      waiter.resolve();
      return false;
    });
  }

  methods(): string[] {
    return this.seen.map((entry) => entry.method);
  }

  /** Resolves when a notification matching arrives (or already arrived). */
  waitFor(method: string, match: (params: Record<string, unknown>) => boolean = () => true): Promise<void> {
    if (this.seen.some((entry) => entry.method === method && match(entry.params))) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ match: (m, p) => m === method && match(p), resolve }));
  }
}

export const TOOLS_CHANGED = 'notifications/tools/list_changed';
export const PROMPTS_CHANGED = 'notifications/prompts/list_changed';
export const RESOURCES_CHANGED = 'notifications/resources/list_changed';
export const RESOURCE_UPDATED = 'notifications/resources/updated';
export const ALL_CHANGES = [TOOLS_CHANGED, PROMPTS_CHANGED, RESOURCES_CHANGED, RESOURCE_UPDATED];

export const progressOnWire = (client: Client): unknown[] =>
  wire(client)
    .filter((message) => message.method === 'notifications/progress')
    .map((message) => (message.params as { progress: unknown }).progress);
