/**
 * Every generated diagram rendered by Mermaid 11 (from node_modules, no CDN)
 * in Debian's chromium: no two edge labels' boxes overlap, so each label of
 * the statecharts in diagrams/ and the README can be read.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../cli/cli-process.ts';
import { sharedChromium, type SharedChromium } from '../fixtures/chromium.ts';

const MERMAID = join(ROOT, 'node_modules', 'mermaid', 'dist', 'mermaid.min.js');
const DIAGRAMS = join(ROOT, 'diagrams');

/** One edge label as laid out on the page. */
interface LabelBox {
  text: string;
  left: number;
  top: number;
  right: number;
  bottom: number;
}

declare global {
  interface Window {
    mermaid: { initialize(config: object): void; render(id: string, text: string): Promise<{ svg: string }> };
  }
}

const diagrams = readdirSync(DIAGRAMS)
  .filter((file) => file.endsWith('.md') && file !== 'README.md')
  .map((file) => ({ name: file.slice(0, -3), text: /```mermaid\n([\s\S]*?)```/.exec(readFileSync(join(DIAGRAMS, file), 'utf8'))![1]! }));

// A context of the run's one chromium (a launch costs seconds of CPU), closed after the file.
let browser: SharedChromium | undefined;
let page: Page;
beforeAll(async () => {
  browser = await sharedChromium();
  page = await browser.context.newPage();
  await page.setContent('<!doctype html><html><body><div id="out"></div></body></html>');
  await page.addScriptTag({ path: MERMAID });
  await page.evaluate(() => window.mermaid.initialize({ startOnLoad: false }));
});
afterAll(async () => {
  await browser?.close();
});

/** Renders `text` and returns the page boxes of its non-empty edge labels. */
const labelBoxes = (text: string): Promise<LabelBox[]> =>
  page.evaluate(async (text) => {
    const { svg } = await window.mermaid.render('diagram', text);
    const out = document.getElementById('out')!;
    out.innerHTML = svg;
    // Mermaid nests an element of the same class inside each label's group: the outermost is the label.
    const labels = Array.from(out.querySelectorAll('.edgeLabel')).filter((label) => !label.parentElement?.closest('.edgeLabel'));
    return labels.map((label) => {
      const box = label.getBoundingClientRect();
      return { text: (label.textContent ?? '').trim(), left: box.left, top: box.top, right: box.right, bottom: box.bottom };
    }).filter((box) => box.text !== '' && box.right > box.left && box.bottom > box.top);
  }, text);

/** Pairs of labels whose boxes share more than a pixel each way. */
function overlapping(boxes: LabelBox[]): string[] {
  const found: string[] = [];
  boxes.forEach((a, i) =>
    boxes.slice(i + 1).forEach((b) => {
      const width = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const height = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (width > 1 && height > 1) found.push(`"${a.text}" × "${b.text}"`);
    }),
  );
  return found;
}

describe('the diagrams rendered by Mermaid 11', () => {
  it('the overlap check sees two boxes that share area, and not boxes that only touch', () => {
    const box = (text: string, left: number, top: number): LabelBox => ({ text, left, top, right: left + 100, bottom: top + 20 });
    expect(overlapping([box('a', 0, 0), box('b', 50, 10), box('c', 100, 0), box('d', 0, 30)])).toEqual(['"a" × "b"', '"b" × "c"']);
  });

  it.each(diagrams)('$name: no two edge labels overlap', async ({ text }) => {
    const boxes = await labelBoxes(text);
    // Every labelled edge of the text was laid out and measured.
    expect(boxes).toHaveLength(text.split('\n').filter((line) => / --> .* : /.test(line)).length);
    expect(overlapping(boxes)).toEqual([]);
  });
});
