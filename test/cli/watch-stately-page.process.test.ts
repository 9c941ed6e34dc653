/**
 * `watch --inspect`'s `/stately` bridge page in Debian's chromium: under its
 * own Content-Security-Policy the page's script opens the relay's WebSocket
 * (seen through the DevTools protocol) and receives the live actors'
 * registrations, which it would hand to the framed stately.ai page. The
 * hosted page itself is not reachable here (no network), so what Stately
 * does with them is not part of this test.
 */
import type { Browser } from 'puppeteer-core';
import { afterEach, describe, expect, it } from 'vitest';
import { launchChromium } from '../fixtures/chromium.ts';
import { killAllCliRuns, watchInspected } from './cli-process.ts';

let browser: Browser | undefined;
afterEach(async () => {
  await browser?.close();
  browser = undefined;
  await killAllCliRuns();
});

describe('watch --inspect: the Stately bridge page', () => {
  it("opens the relay's WebSocket under its own CSP and receives the live actors", async () => {
    const { run, url, statelySocket } = await watchInspected('modern');
    browser = await launchChromium();
    const page = await browser.newPage();
    const devtools = await page.createCDPSession();
    await devtools.send('Network.enable');
    const sockets: string[] = [];
    const registered = new Promise<string>((resolve) =>
      devtools.on('Network.webSocketFrameReceived', ({ response }) => {
        const message = JSON.parse(response.payloadData) as { type: string; name: string };
        if (message.type === '@xstate.actor' && message.name === 'connection') resolve(response.payloadData);
      }),
    );
    devtools.on('Network.webSocketCreated', ({ url: socketUrl }) => sockets.push(socketUrl));

    // Not 'load': that waits on the stately.ai frame, which has no network here.
    await page.goto(`${url}stately`, { waitUntil: 'domcontentloaded' });
    expect(await page.$eval('iframe', (frame) => frame.getAttribute('src'))).toBe('https://stately.ai/inspect');
    // A socket the CSP's connect-src refused would never be created, and nothing would arrive.
    const registration = JSON.parse(await registered) as { snapshot: { context: unknown } };
    expect(registration.snapshot.context).toEqual({ withheld: 'context' });
    expect(sockets).toEqual([statelySocket]);

    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(0);
  });
});
