/**
 * Authorization against a real protected server: the official
 * @modelcontextprotocol/server 2.4.0 behind a bearer check (child process,
 * protected-http-server.ts) and a scripted authorization server on loopback
 * (oauth-authorization-server.ts). The user's browser is a fetch that hands
 * the authorization server's redirect back, as a CLI's loopback listener
 * would.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AuthError,
  createClient,
  httpTransport,
  type AuthorizationCodeProvider,
  type ClientInformation,
  type McpClient,
  type OAuthTokens,
} from '../../src/index.ts';
import { startHttpFixture, type HttpFixture } from '../fixtures/http-fixture-process.ts';
import { MACHINE_CLIENT, startAuthorizationServer, type AuthorizationServerFixture } from '../fixtures/oauth-authorization-server.ts';

/** What an application keeps between runs: tokens and registrations. */
interface Store {
  tokens: OAuthTokens | undefined;
  clients: Map<string, ClientInformation>;
  /** Every authorization URL the user was sent to. */
  visited: URL[];
}

const newStore = (): Store => ({ tokens: undefined, clients: new Map(), visited: [] });

function userProvider(store: Store): AuthorizationCodeProvider {
  return {
    kind: 'authorization_code',
    redirectUri: 'http://127.0.0.1:8976/callback',
    clientMetadata: { clientName: 'oauth test' },
    clientInformation: (issuer) => store.clients.get(issuer),
    saveClientInformation: (issuer, information) => void store.clients.set(issuer, information),
    tokens: () => store.tokens,
    saveTokens: (tokens) => void (store.tokens = tokens),
    redirectToAuthorization: async (url) => {
      store.visited.push(url);
      const response = await fetch(url, { redirect: 'manual' });
      await response.body?.cancel();
      return new URL(response.headers.get('location') ?? 'about:blank');
    },
  };
}

let as: AuthorizationServerFixture;
let server: HttpFixture;
const clients: McpClient[] = [];

const connected = async (auth: Parameters<typeof httpTransport>[0]['auth'], target: HttpFixture = server): Promise<McpClient> => {
  const client = createClient({ transport: httpTransport({ url: target.url, ...(auth ? { auth } : {}) }), era: 'modern', reconnect: false, requestTimeoutMs: 30_000 });
  clients.push(client);
  await client.connect();
  return client;
};

/** Starts an authorization server and the protected MCP server that introspects its tokens there. */
async function startPair(options?: Parameters<typeof startAuthorizationServer>[0]): Promise<{ as: AuthorizationServerFixture; server: HttpFixture }> {
  const started = await startAuthorizationServer(options);
  return { as: started, server: await startHttpFixture('protected', { args: ['--issuer', started.issuer] }) };
}

async function stopPair(pair: { as: AuthorizationServerFixture; server: HttpFixture }): Promise<void> {
  await pair.server.stop();
  await pair.as.close();
}

// One pair per file: the protected server keeps no state of its own (it asks the authorization server about every
// token), and each test starts from a fresh authorization server through its reset().
beforeAll(async () => {
  ({ as, server } = await startPair());
});
afterAll(() => stopPair({ as, server }));

beforeEach(() => as.reset());

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
});

describe('OAuth authorization code flow against the official server behind a bearer check', () => {
  it('first login: discovers, registers, sends the user once, and keeps a refreshable token', async () => {
    const store = newStore();
    const client = await connected(userProvider(store));
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(['echo']);
    expect(as.registrations).toEqual(['client-1']);
    expect(as.authorizations).toEqual([{ clientId: 'client-1', scope: 'mcp:read offline_access', resource: server.url }]);
    expect(store.visited).toHaveLength(1);
    expect(store.visited[0]!.searchParams.get('code_challenge_method')).toBe('S256');
    expect(store.tokens).toMatchObject({ issuer: as.issuer, scope: 'mcp:read offline_access', refreshToken: expect.any(String) });
    expect(as.tokenRequests.map((request) => [request.grantType, request.resource])).toEqual([['authorization_code', server.url]]);
  });

  it('step-up: a 403 insufficient_scope re-authorizes with the union of scopes and the call goes through', async () => {
    const store = newStore();
    const client = await connected(userProvider(store));
    const result = await client.callTool('echo', { text: 'hi' });
    expect(result.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(as.authorizations.map((authorization) => authorization.scope)).toEqual(['mcp:read offline_access', 'mcp:read offline_access mcp:write']);
    expect(store.tokens?.scope).toBe('mcp:read offline_access mcp:write');
  });

  it('refresh: a token the server stops accepting is refreshed without sending the user again', async () => {
    const store = newStore();
    const client = await connected(userProvider(store));
    const first = store.tokens?.accessToken;
    as.revokeAccessTokens();
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(['echo']);
    expect(store.visited).toHaveLength(1);
    expect(as.tokenRequests.map((request) => request.grantType)).toEqual(['authorization_code', 'refresh_token']);
    expect(store.tokens?.accessToken).not.toBe(first);
  });

  it('an authorization server whose metadata does not list PKCE (S256) is refused before the user is sent anywhere', async () => {
    // A pair of its own, beside the file's: its authorization server's metadata differs.
    const withoutPkce = await startPair({ listsPkce: false });
    try {
      const store = newStore();
      const refused = await connected(userProvider(store), withoutPkce.server).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(AuthError);
      expect(refused).toMatchObject({ code: 'authorization_failed' });
      expect(store.visited).toEqual([]);
      expect(withoutPkce.as.authorizations).toEqual([]);
    } finally {
      await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
      await stopPair(withoutPkce);
    }
  });

  it('a new client with the stored tokens connects without any authorization', async () => {
    const store = newStore();
    await connected(userProvider(store));
    const again = await connected(userProvider(store));
    expect((await again.listTools()).map((tool) => tool.name)).toEqual(['echo']);
    expect(store.visited).toHaveLength(1);
    expect(as.tokenRequests).toHaveLength(1);
  });

  it('an expired stored token is refreshed before the first request, without user action', async () => {
    const store = newStore();
    await connected(userProvider(store));
    store.tokens = { ...store.tokens!, expiresAt: Date.now() - 1_000 };
    const again = await connected(userProvider(store));
    expect((await again.listTools()).map((tool) => tool.name)).toEqual(['echo']);
    expect(store.visited).toHaveLength(1);
    expect(as.tokenRequests.map((request) => request.grantType)).toEqual(['authorization_code', 'refresh_token']);
  });

  it('without an auth provider, connect rejects with AuthError unauthorized', async () => {
    const error = await connected(undefined).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).code).toBe('unauthorized');
  });
});

describe('OAuth client credentials (machine to machine)', () => {
  it('obtains a token with its secret, no user involved', async () => {
    let tokens: OAuthTokens | undefined;
    const client = await connected({
      kind: 'client_credentials',
      clientId: MACHINE_CLIENT.id,
      clientSecret: MACHINE_CLIENT.secret,
      tokens: () => tokens,
      saveTokens: (next) => void (tokens = next),
    });
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(['echo']);
    expect(as.authorizations).toEqual([]);
    expect(as.tokenRequests).toEqual([{ grantType: 'client_credentials', resource: server.url, scope: 'mcp:read' }]);
  });

  it('a wrong secret is AuthError token_failed', async () => {
    const error = await connected({ kind: 'client_credentials', clientId: MACHINE_CLIENT.id, clientSecret: 'wrong', tokens: () => undefined, saveTokens: () => {} }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).code).toBe('token_failed');
  });
});
