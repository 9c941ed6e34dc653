/**
 * `watch --inspect`'s local page in Debian's chromium (puppeteer-core, no
 * browser download, no network): while the watcher follows the demo server
 * and that server dies (SIGKILL, the demo's crash on cue), the page's DOM
 * shows the connection's highlighted state going ready → reconnecting →
 * ready, and every stream drawn with its machine's states and its own
 * passage through them. A screenshot is kept under .tmp/.
 * And its `/stately` bridge page: under its own Content-Security-Policy the
 * page's script opens the relay's WebSocket (seen through the DevTools
 * protocol) and receives the live actors' registrations, which it would hand
 * to the framed stately.ai page. The hosted page itself is not reachable here
 * (no network), so what Stately does with them is not part of this test.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listenerMachine } from '../../machines/listener.machine.ts';
import { subscriptionMachine } from '../../machines/subscription.machine.ts';
import { outlineOf, type StateOutline } from '../../src/inspector/machine-outline.ts';
import { sharedChromium, type SharedChromium } from '../fixtures/chromium.ts';
import { ROOT, killAllCliRuns, killCliRunsExcept, watchInspected, type CliRun } from './cli-process.ts';

const WAIT_MS = 15_000;

// A context of the run's one chromium for the file (a launch costs seconds of CPU); each test gets a page of its own,
// closed after it.
let browser: SharedChromium | undefined;
const pages: Page[] = [];
// One modern watcher for two tests (a run is a CLI and a demo process): the Stately bridge test only reads its relay,
// then the modern page test opens the page on the present the feed replays, kills the demo and ends the watcher.
let modern: Awaited<ReturnType<typeof watchInspected>> | undefined;
beforeAll(async () => {
  [browser, modern] = await Promise.all([sharedChromium(), watchInspected('modern')]);
});
afterAll(async () => {
  try {
    await browser?.close();
    browser = undefined;
  } finally {
    await killAllCliRuns();
  }
});
afterEach(async () => {
  await Promise.all(pages.splice(0).map((page) => page.close()));
  await killCliRunsExcept(new Set<CliRun | undefined>([modern?.run]));
});

/** A fresh page of the file's browser, closed after the test. */
async function newPage(): Promise<Page> {
  const page = await browser!.context.newPage();
  pages.push(page);
  return page;
}

/** What a test reads of one actor's card: its highlighted (current) state paths, its trail of states (oldest first), its boxes. */
interface Card {
  session: string;
  machine: string;
  name: string;
  stopped: boolean;
  current: string[];
  trail: string[];
  paths: string[];
}

declare global {
  interface Window {
    /** Exposed by the test: receives the page's cards after every DOM change. */
    reportCards(cards: Card[]): void;
  }
}

/** Runs in the page before its own script: after every DOM change, report every card as plain data. */
function installCardReporter(): void {
  const texts = (root: Element, selector: string, read: (element: HTMLElement) => string | undefined) =>
    Array.from(root.querySelectorAll<HTMLElement>(selector), (element) => read(element) ?? '');
  const read = (): Card[] =>
    Array.from(document.querySelectorAll<HTMLElement>('section.actor'), (section) => ({
      session: section.dataset.session ?? '',
      machine: section.dataset.machine ?? '',
      name: section.dataset.name ?? '',
      stopped: section.classList.contains('stopped'),
      current: texts(section, '.state.current', (box) => box.dataset.path),
      trail: texts(section, 'ol.states li', (item) => item.textContent ?? undefined).reverse(),
      paths: texts(section, '.state', (box) => box.dataset.path).sort(),
    }));
  new MutationObserver(() => void window.reportCards(read())).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
}

/** The page as the test sees it: the latest cards, and a wait for a condition on them. */
async function openPage(url: string) {
  const page = await newPage();
  let latest: Card[] = [];
  const waiters = new Set<() => void>();
  await page.exposeFunction('reportCards', (cards: Card[]) => {
    latest = cards;
    for (const waiter of [...waiters]) waiter();
  });
  await page.evaluateOnNewDocument(installCardReporter);
  await page.goto(url);
  const cardsOf = (machine: string) => latest.filter((card) => card.machine === machine);
  /** Resolves once `check` holds of the page's cards; re-checked on every DOM change. */
  const waitFor = (what: string, check: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`the page never showed ${what}; its cards: ${JSON.stringify(latest)}`));
      }, WAIT_MS);
      const waiter = () => {
        if (!check()) return;
        clearTimeout(timer);
        waiters.delete(waiter);
        resolve();
      };
      waiters.add(waiter);
      waiter();
    });
  /** Some live card of `machine` exists and every live one passes `check`. */
  const waitForCards = (machine: string, check: (card: Card) => boolean, what: string) =>
    waitFor(what, () => {
      const live = cardsOf(machine).filter((card) => !card.stopped);
      return live.length > 0 && live.every(check);
    });
  return { page, cardsOf, waitFor, waitForCards };
}

/** Whether the trail went through `words` in order (each entry is a dotted state path, or several joined by ` + `). */
const wentThrough = (trail: string[], words: string[]): boolean => {
  let from = 0;
  for (const word of words) {
    const at = trail.findIndex((entry, index) => index >= from && entry.split(/[.+ ]/).includes(word));
    if (at < 0) return false;
    from = at + 1;
  }
  return true;
};

const allPaths = (state: StateOutline): string[] => [state.path, ...state.children.flatMap(allPaths)].filter((path) => path !== '');

const ERAS = [
  { era: 'modern', machine: subscriptionMachine, active: 'listening.active' },
  { era: 'legacy', machine: listenerMachine, active: 'active' },
] as const;

describe('watch --inspect: the Stately bridge page', () => {
  it("opens the relay's WebSocket under its own CSP and receives the live actors", async () => {
    const { run, url, statelySocket } = modern!;
    const page = await newPage();
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
    // The watcher goes on for the modern page test, which ends it.
    expect(run.child.exitCode).toBeNull();
  });
});

describe('watch --inspect: the local page in chromium', () => {
  it.each(ERAS)('$era: the connection goes ready → reconnecting → ready on the page and each $machine.id stream shows its states', async ({ era, machine, active }) => {
    const { run, url } = era === 'modern' ? modern! : await watchInspected(era);
    const { page, cardsOf, waitFor, waitForCards } = await openPage(url);
    const activeKey = active.split('.').pop()!;

    await waitForCards('connection', (card) => card.current.some((path) => path.startsWith('online.ready.')), 'a ready connection');
    await waitForCards(machine.id, (card) => card.current.includes(active), `every ${machine.id} ${active}`);
    const streams = cardsOf(machine.id);
    // Every stream is drawn from its machine's definition: each of its states is a box on the page.
    for (const stream of streams) expect(stream.paths).toEqual(allPaths(outlineOf(machine).root).sort());

    // The demo's crash, on cue: its server dies; the watcher reconnects to a new one.
    await run.event((event) => event.type === 'list', 'the first lists');
    process.kill(run.serverPids[0]!, 'SIGKILL');
    await waitForCards(
      'connection',
      (card) => wentThrough(card.trail, ['ready', 'reconnecting', 'ready']) && card.current.some((path) => path.startsWith('online.ready.')),
      'the connection ready → reconnecting → ready',
    );
    // Each stream the watcher had paused while the server was gone; after the reconnect as many streams are active again
    // (the page shows what the actors did: a stream that ended is greyed out beside its replacement).
    const before = new Set(streams.map((stream) => stream.session));
    await waitFor(`every ${machine.id} ${activeKey} → paused, then as many ${active} again`, () => {
      const cards = cardsOf(machine.id);
      const paused = cards.filter((card) => before.has(card.session)).every((card) => wentThrough(card.trail, [activeKey, 'paused']));
      const live = cards.filter((card) => !card.stopped);
      return paused && live.length === before.size && live.every((card) => card.current.includes(active));
    });

    const [connection] = cardsOf('connection');
    expect(connection!.current).toEqual([expect.stringMatching(/^online\.ready\.(modern|legacy)$/)]);
    mkdirSync(join(ROOT, '.tmp'), { recursive: true });
    await page.screenshot({ path: join(ROOT, '.tmp', `inspector-${era}.png`), fullPage: true });

    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(0);
  });
});
