/** The README's TypeScript examples type-check against the real API (see examples.ts for how). */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exampleTypeErrors, typescriptBlocks } from './examples.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

describe("the README's TypeScript examples", () => {
  it('type-check, every one', async () => {
    const readme = await readFile(new URL('README.md', `file://${repoRoot}`), 'utf8');
    expect(typescriptBlocks(readme).length).toBeGreaterThan(8);
    expect(exampleTypeErrors(readme, repoRoot)).toEqual([]);
  }, 120_000);

  it('report an example that calls the API wrongly, with its README line', () => {
    const readme = ['# x', '', '```ts', "import { createServer } from 'mcp-actors/server';", '', "createServer({ name: 'x' });", '```', ''].join('\n');
    const errors = exampleTypeErrors(readme, repoRoot);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^README\.md:6: .*version/);
  }, 120_000);
});
