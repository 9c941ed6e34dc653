/**
 * One chromium per test run for the browser test files (the inspector page,
 * the Mermaid diagrams), instead of one launch per file: a launch costs
 * seconds of CPU. The global setup serves a loopback address (provided to
 * the tests as `chromiumBroker`); the first file that asks there launches
 * the browser, later ones get the same one, and the teardown closes it
 * (before the leak check). A run without browser tests launches nothing.
 * Each file works in a browser context of its own (sharedChromium() in
 * test/fixtures/chromium.ts), so no file sees another's pages or storage.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'puppeteer-core';

declare module 'vitest' {
  interface ProvidedContext {
    /** The loopback address that answers a GET with the run's chromium's DevTools WebSocket address. */
    chromiumBroker: string;
  }
}

/** The run's browser broker: its address, and the close that ends the browser with it. */
export interface ChromiumBroker {
  url: string;
  close(): Promise<void>;
}

/** Listens on loopback; launches chromium on the first request only. */
export async function serveChromiumBroker(): Promise<ChromiumBroker> {
  let launching: Promise<Browser> | undefined;
  const launch = async (): Promise<Browser> => {
    // Loaded only when a file asks: most runs have no browser test.
    const { launchChromium } = await import('../fixtures/chromium.ts');
    return launchChromium();
  };
  const server = createServer((request, response) => {
    if (request.method !== 'GET') {
      response.writeHead(405).end();
      return;
    }
    launching ??= launch();
    launching.then(
      (browser) => response.writeHead(200, { 'content-type': 'text/plain' }).end(browser.wsEndpoint()),
      (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(error instanceof Error ? error.message : String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      const browser = await launching?.catch(() => undefined);
      await browser?.close();
    },
  };
}
