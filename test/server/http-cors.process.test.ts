/**
 * CORS on the wire, as a browser speaks it: the preflight a JSON POST needs, then the answer a page may read, for
 * the origins the endpoint's policy allows, and nothing for those it refuses or for clients that send no Origin.
 * Over listenHttp (loopback) and the fetch-style handler. test/server/browser-client.process.test.ts has a real
 * browser do the same.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';

const APP = 'https://app.example.com';
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const JSON_POST = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const preflight = (origin: string, headers = 'content-type, mcp-protocol-version, mcp-session-id, mcp-param-city') => ({
  origin,
  'access-control-request-method': 'POST',
  'access-control-request-headers': headers,
});

let server: McpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function corsOf(response: Response): Record<string, string> {
  const cors: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name.startsWith('access-control-') || name === 'vary') cors[name] = value;
  });
  return cors;
}

describe('CORS over listenHttp', () => {
  async function start(): Promise<string> {
    server = buildFixtureServer();
    return (await server.listenHttp({ port: 0, allowedOrigins: [APP] })).url;
  }

  it("answers an allowed origin's preflight with the methods and exactly the headers it asked for", async () => {
    const url = await start();
    const answer = await fetch(url, { method: 'OPTIONS', headers: preflight(APP) });
    expect(answer.status).toBe(204);
    expect(corsOf(answer)).toEqual({
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET, POST, DELETE',
      'access-control-allow-headers': 'content-type, mcp-protocol-version, mcp-session-id, mcp-param-city',
      'access-control-expose-headers': 'mcp-session-id, mcp-protocol-version, retry-after, www-authenticate',
      'access-control-max-age': '7200',
      vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    });
    // A header list that is not one (a field name cannot hold ';') allows no header.
    const odd = await fetch(url, { method: 'OPTIONS', headers: preflight(APP, 'content-type; x=1') });
    expect(odd.status).toBe(204);
    expect(odd.headers.get('access-control-allow-headers')).toBeNull();
  });

  it("lets an allowed page read the session id of its legacy initialize, and every answer after", async () => {
    const url = await start();
    const init = await fetch(url, { method: 'POST', headers: { ...JSON_POST, origin: APP }, body: JSON.stringify(INIT) });
    expect(init.status).toBe(200);
    expect(init.headers.get('access-control-allow-origin')).toBe(APP);
    expect(init.headers.get('access-control-expose-headers')?.split(', ')).toContain('mcp-session-id');
    expect(init.headers.get('mcp-session-id')).toMatch(/./);
    expect(init.headers.get('vary')).toBe('Origin');
    // An error answer is readable too: the page learns why.
    const bad = await fetch(url, { method: 'POST', headers: { ...JSON_POST, origin: APP }, body: '{' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('gives a refused origin no CORS headers, preflight or not', async () => {
    const url = await start();
    for (const method of ['OPTIONS', 'POST']) {
      const answer = await fetch(url, { method, headers: { ...preflight('https://evil.example'), ...JSON_POST }, ...(method === 'POST' ? { body: JSON.stringify(INIT) } : {}) });
      expect(answer.status).toBe(403);
      expect(corsOf(answer)).toEqual({});
    }
  });

  it('adds nothing for a client that sends no Origin, and answers its OPTIONS with the methods', async () => {
    const url = await start();
    const init = await fetch(url, { method: 'POST', headers: JSON_POST, body: JSON.stringify(INIT) });
    expect(init.status).toBe(200);
    expect(corsOf(init)).toEqual({});
    const options = await fetch(url, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, POST, DELETE, OPTIONS');
    expect(corsOf(options)).toEqual({});
    const put = await fetch(url, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE, OPTIONS');
  });
});

describe('CORS through the fetch-style handler', () => {
  it('answers a preflight with an empty 204 and a POST with the headers', async () => {
    server = buildFixtureServer();
    const handler = server.fetchHandler({ allowedOrigins: [APP], allowedHosts: ['mcp.example.com'] });
    const url = 'http://mcp.example.com/mcp';
    const answer = await handler(new Request(url, { method: 'OPTIONS', headers: preflight(APP) }));
    expect(answer.status).toBe(204);
    expect(answer.body).toBeNull();
    expect(answer.headers.get('access-control-allow-origin')).toBe(APP);
    expect(answer.headers.get('access-control-allow-headers')).toBe('content-type, mcp-protocol-version, mcp-session-id, mcp-param-city');
    const init = await handler(new Request(url, { method: 'POST', headers: { ...JSON_POST, origin: APP }, body: JSON.stringify(INIT) }));
    expect(init.status).toBe(200);
    expect(init.headers.get('access-control-allow-origin')).toBe(APP);
    expect(init.headers.get('mcp-session-id')).toMatch(/./);
    await init.body?.cancel();
    await handler.close();
  });
});

describe('CORS in an app that has its own', () => {
  it("keeps the headers the app's middleware set, and adds the ones it did not", async () => {
    server = buildFixtureServer();
    const handler = server.nodeHandler();
    const app = createServer((request, response) => {
      // What CORS middleware in front of the handler does (Express's cors(), say).
      response.setHeader('access-control-allow-origin', '*');
      response.setHeader('access-control-expose-headers', 'mcp-session-id, x-app-trace');
      void handler(request, response);
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    try {
      const page = 'http://localhost:5173';
      const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/mcp`;
      const init = await fetch(url, { method: 'POST', headers: { ...JSON_POST, origin: page }, body: JSON.stringify(INIT) });
      expect(init.status).toBe(200);
      expect(corsOf(init)).toEqual({ 'access-control-allow-origin': '*', 'access-control-expose-headers': 'mcp-session-id, x-app-trace', vary: 'Origin' });
      await init.body?.cancel();
    } finally {
      await handler.close();
      await new Promise((resolve) => app.close(resolve));
    }
  });
});
