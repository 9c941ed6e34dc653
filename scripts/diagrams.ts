/**
 * `npm run diagrams`: regenerates `diagrams/` from the machines. Markdown files
 * the generator no longer produces are removed, because the folder is never
 * edited by hand and a leftover diagram would describe a machine that is gone.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderDiagrams } from '../src/diagrams/catalog.ts';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(repoRoot, 'diagrams');

const files = await renderDiagrams(repoRoot);
await mkdir(outDir, { recursive: true });
for (const existing of await readdir(outDir)) {
  if (existing.endsWith('.md') && !files.has(existing)) {
    await rm(join(outDir, existing));
    console.log(`removed diagrams/${existing}`);
  }
}
for (const [name, text] of files) {
  const path = join(outDir, name);
  const before = await readFile(path, 'utf8').catch(() => undefined);
  if (before === text) continue;
  await writeFile(path, text);
  console.log(`wrote diagrams/${name}`);
}
console.log(`${files.size - 1} machine diagram(s) up to date`);
