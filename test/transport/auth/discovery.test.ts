/**
 * Discovery of a protected server's authorization server, against a scripted
 * metadata host on loopback: which URLs are asked in which order, and what is
 * refused.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { discover } from '../../../src/transport/auth/discovery.ts';
import { AuthError } from '../../../src/transport/auth/errors.ts';

/** JSON documents by path; the origin is passed in so documents can name the host. Every request's path is recorded. */
type Routes = Record<string, (origin: string) => unknown>;

let host: Server | undefined;
const requested: string[] = [];

async function serve(routes: Routes): Promise<string> {
  let origin = '';
  host = createServer((request, response) => {
    requested.push(request.url ?? '');
    const route = routes[request.url ?? ''];
    if (route === undefined) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(route(origin)));
  });
  host.listen(0, '127.0.0.1');
  await once(host, 'listening');
  const address = host.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  origin = `http://127.0.0.1:${address.port}`;
  return origin;
}

afterEach(async () => {
  requested.length = 0;
  host?.closeAllConnections();
  host?.close();
  host = undefined;
});

const asMetadata = (issuer: string) => ({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, response_types_supported: ['code'] });
const fetcher: typeof fetch = (input, init) => fetch(input, init);
const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as AuthError);

describe('discover', () => {
  it('falls back from the path-based to the root resource metadata, and from RFC 8414 to OpenID paths for an issuer with a path', async () => {
    const origin = await serve({
      '/.well-known/oauth-protected-resource': (o) => ({ resource: o, authorization_servers: [`${o}/tenant`], scopes_supported: ['x'] }),
      '/tenant/.well-known/openid-configuration': (o) => asMetadata(`${o}/tenant`),
    });
    const found = await discover(new URL(`${origin}/mcp`), undefined, fetcher);
    expect(found).toMatchObject({ resource: origin, resourceScopes: ['x'], as: { issuer: `${origin}/tenant` } });
    expect(requested).toEqual([
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-authorization-server/tenant',
      '/.well-known/openid-configuration/tenant',
      '/tenant/.well-known/openid-configuration',
    ]);
  });

  it("asks the challenge's resource_metadata first", async () => {
    const origin = await serve({
      '/custom.json': (o) => ({ resource: `${o}/mcp`, authorization_servers: [o] }),
      '/.well-known/oauth-authorization-server': (o) => asMetadata(o),
    });
    await discover(new URL(`${origin}/mcp`), { resourceMetadata: `${origin}/custom.json` }, fetcher);
    expect(requested).toEqual(['/custom.json', '/.well-known/oauth-authorization-server']);
  });

  it('refuses resource metadata for another resource', async () => {
    const origin = await serve({ '/.well-known/oauth-protected-resource/mcp': () => ({ resource: 'https://elsewhere.example/mcp', authorization_servers: ['https://as.example'] }) });
    expect((await failure(discover(new URL(`${origin}/mcp`), undefined, fetcher)))?.code).toBe('resource_mismatch');
  });

  it('refuses authorization server metadata naming another issuer', async () => {
    const origin = await serve({
      '/.well-known/oauth-protected-resource/mcp': (o) => ({ resource: `${o}/mcp`, authorization_servers: [o] }),
      '/.well-known/oauth-authorization-server': () => asMetadata('https://attacker.example'),
    });
    const error = await failure(discover(new URL(`${origin}/mcp`), undefined, fetcher));
    expect(error).toBeInstanceOf(AuthError);
    expect(error?.code).toBe('issuer_mismatch');
  });

  it('a server with no metadata at all is a 2025-03-26 server: its origin with the default endpoints', async () => {
    const origin = await serve({});
    const found = await discover(new URL(`${origin}/mcp`), undefined, fetcher);
    expect(found).toEqual({
      resource: `${origin}/mcp`,
      resourceScopes: undefined,
      as: { issuer: origin, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token`, registration_endpoint: `${origin}/register` },
      pkceMustBeListed: false,
    });
  });

  it('resource metadata naming an authorization server without metadata is a discovery failure', async () => {
    const origin = await serve({ '/.well-known/oauth-protected-resource/mcp': (o) => ({ resource: `${o}/mcp`, authorization_servers: [`${o}/none`] }) });
    expect((await failure(discover(new URL(`${origin}/mcp`), undefined, fetcher)))?.code).toBe('discovery_failed');
  });
});
