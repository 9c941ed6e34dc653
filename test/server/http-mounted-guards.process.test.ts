/**
 * A mounted handler against hostile or oversized requests: the Origin/Host
 * check with its defaults for an app whose bind address it cannot know, the
 * same check opened by options, and the body limit whether the handler
 * reads the body or a framework's parser already did.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import { MOUNTED_APPS, type MountedApp } from '../fixtures/mounted-apps.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { rawPost } from '../fixtures/raw-http.ts';

let server: McpServer | undefined;
let app: MountedApp | undefined;
afterEach(async () => {
  await server?.close();
  await app?.close();
  server = undefined;
  app = undefined;
});

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** The status of an initialize POST to the mounted endpoint with these headers (Host defaults to the app's own address). */
function statusWith(mounted: MountedApp, headers: Record<string, string>, body = INIT): Promise<number> {
  return rawPost(mounted.port, { ...JSON_HEADERS, ...headers }, body, '127.0.0.1', new URL(mounted.url).pathname);
}

describe.each(MOUNTED_APPS)('Host and Origin on a handler mounted in $name', ({ start }) => {
  it('by default (the app\'s bind unknown) accepts loopback Host names and origins only', async () => {
    server = buildFixtureServer();
    const mounted = (app = await start(server));
    const port = mounted.port;
    for (const host of [`127.0.0.1:${port}`, `127.0.0.2:${port}`, `[::1]:${port}`, `localhost:${port}`]) {
      expect(await statusWith(mounted, { host }), host).toBe(200);
    }
    expect(await statusWith(mounted, { origin: 'http://localhost:5173' })).toBe(200);
    expect(await statusWith(mounted, { host: `evil.example:${port}` })).toBe(403);
    expect(await statusWith(mounted, { origin: 'http://evil.example' })).toBe(403);
    expect(await statusWith(mounted, { host: `evil.example:${port}`, origin: `http://evil.example:${port}` })).toBe(403);
  });

  it('accepts the Host names and origins its options list', async () => {
    server = buildFixtureServer();
    const mounted = (app = await start(server, { allowedHosts: ['MCP.example.com'], allowedOrigins: ['https://app.example.com'] }));
    expect(await statusWith(mounted, { host: `mcp.example.com:${mounted.port}`, origin: 'https://app.example.com' })).toBe(200);
    expect(await statusWith(mounted, { host: `other.example.com:${mounted.port}` })).toBe(403);
    expect(await statusWith(mounted, { origin: 'http://localhost:5173' })).toBe(403);
  });

  it("with allowedHosts 'any' checks no Host, and refuses every Origin it does not list", async () => {
    server = buildFixtureServer();
    const mounted = (app = await start(server, { allowedHosts: 'any' }));
    expect(await statusWith(mounted, { host: `mcp.example.com:${mounted.port}` })).toBe(200);
    expect(await statusWith(mounted, { host: `mcp.example.com:${mounted.port}`, origin: `http://mcp.example.com:${mounted.port}` })).toBe(403);
    expect(await statusWith(mounted, { origin: 'http://localhost:5173' })).toBe(403);
  });

  it('refuses a body past maxBodyBytes with 413', async () => {
    server = buildFixtureServer({ limits: { maxBodyBytes: 1024 } });
    const mounted = (app = await start(server));
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { padding: 'x'.repeat(5000) } });
    expect(await statusWith(mounted, {}, big)).toBe(413);
    expect(await statusWith(mounted, {})).toBe(200);
  });
});

describe('the handler mounted in Express as it is', () => {
  it('ignores next, its third argument, and reads the body itself', async () => {
    server = buildFixtureServer();
    const mounted = (app = await MOUNTED_APPS[1]!.start(server));
    const raw = mounted.url.replace('/v1/mcp', '/raw/mcp');
    const response = await fetch(raw, { method: 'POST', headers: JSON_HEADERS, body: INIT });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeTruthy();
    expect(await response.json()).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
  });
});
