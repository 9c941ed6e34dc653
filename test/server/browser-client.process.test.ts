/**
 * A browser is a client of our server: the official 2.x client, bundled for the browser, runs in a page of one
 * origin (http://localhost:<port>) and connects to our server on another (http://127.0.0.1:<port>), as a web app or
 * a dev server's page would. Chromium enforces CORS: the preflight of every JSON POST, the response headers a page
 * may read (the legacy session id above all), and the refusal of an origin the server's policy does not allow.
 * Both eras, over loopback, in the run's one Chromium (test/setup/shared-chromium.ts).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import type { PageConnected } from '../fixtures/browser/official-client-page.ts';
import { sharedChromium, type SharedChromium } from '../fixtures/chromium.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { browserClientBundle } from '../setup/fixture-bundle.ts';

/** Bundling for the browser when its inputs changed, and starting the run's Chromium if no file did yet. */
const STARTING = 60_000;

let browser: SharedChromium | undefined;
let pageServer: Server | undefined;
let pageUrl: string;
beforeAll(async () => {
  const [shared, bundle] = await Promise.all([sharedChromium(), browserClientBundle()]);
  browser = shared;
  const script = readFileSync(bundle, 'utf8');
  const html = '<!doctype html><meta charset="utf-8"><title>MCP in a page</title><script type="module" src="/client.js"></script>';
  pageServer = createServer((request, response) => {
    if (request.url === '/client.js') response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else response.writeHead(200, { 'content-type': 'text/html' }).end(html);
  });
  await new Promise<void>((resolve) => pageServer!.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://localhost:${(pageServer.address() as AddressInfo).port}/`;
}, STARTING);
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => pageServer?.close(resolve));
});

let server: McpServer | undefined;
const pages: Page[] = [];
afterEach(async () => {
  await Promise.all(pages.splice(0).map((page) => page.close()));
  await server?.close();
  server = undefined;
});

/** A page of the page origin with the client loaded (its module has run once `window.mcp` exists). */
async function openPage(): Promise<Page> {
  const page = await browser!.context.newPage();
  pages.push(page);
  await page.goto(pageUrl);
  await page.waitForFunction(() => 'mcp' in window);
  return page;
}

describe.each(['legacy', 'modern'] as const)('the official client in a browser page, %s era', (era) => {
  it('connects across origins, reads its session id, calls a tool and hears a list change', async () => {
    server = buildFixtureServer();
    // No allowedOrigins: the loopback origins are allowed while the Host is checked, so a dev page on another
    // loopback port may connect.
    const { url } = await server.listenHttp({ port: 0 });
    const page = await openPage();
    const connected: PageConnected = await page.evaluate((target, asEra) => window.mcp.connect(target, asEra), url, era);
    expect(connected.protocolVersion).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');
    expect(connected.tools).toContain('echo');
    // Legacy: the page read Mcp-Session-Id from the initialize answer (exposed), and every request after carried it.
    if (era === 'legacy') expect(connected.sessionId).toMatch(/./);
    else expect(connected.sessionId).toBeUndefined();
    expect(await page.evaluate(() => window.mcp.call('echo', { text: 'from a page' }))).toBe('from a page');
    await page.evaluate(() => window.mcp.call('emit', { kind: 'tools' }));
    await page.waitForFunction(() => window.mcp.toolsChanged() === 1);
    await page.evaluate(() => window.mcp.close());
  });

  it('cannot connect from an origin the server does not allow', async () => {
    server = buildFixtureServer();
    const { url } = await server.listenHttp({ port: 0, allowedOrigins: ['https://app.example.com'] });
    const page = await openPage();
    const failure = await page.evaluate((target, asEra) => window.mcp.connect(target, asEra).then(() => 'connected', (error: Error) => error.message), url, era);
    expect(failure).not.toBe('connected');
    expect(server.openSessionCount).toBe(0);
  });
});
