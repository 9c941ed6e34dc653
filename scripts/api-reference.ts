/**
 * `npm run api`: regenerates the "API reference" section of README.md (only
 * between its marker comments) from the TSDoc of every export of every entry
 * point in package.json `exports`, and lists the exports that have none.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { undocumented } from './api-reference/collect.ts';
import { collectApi, withApiReference } from './api-reference/reference.ts';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const readmePath = join(repoRoot, 'README.md');

const entries = collectApi(repoRoot);
const readme = await readFile(readmePath, 'utf8');
const updated = withApiReference(readme, entries);
if (updated !== readme) {
  await writeFile(readmePath, updated);
  console.log('wrote the API reference section of README.md');
}
const missing = undocumented(entries);
if (missing.length > 0) console.log(`${missing.length} export(s) and member(s) without TSDoc:\n${missing.join('\n')}`);
console.log(`${entries.reduce((sum, entry) => sum + entry.items.length, 0)} exports of ${entries.length} entry point(s) up to date`);
