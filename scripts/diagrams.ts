/**
 * `npm run diagrams`: regenerates `diagrams/` from the machines, and the
 * statecharts section of README.md (only between its marker comments).
 * Markdown files the generator no longer produces are removed from
 * `diagrams/`, because the folder is never edited by hand and a leftover
 * diagram would describe a machine that is gone.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diagramFiles, findMachines } from '../src/diagrams/catalog.ts';
import { spliceStatecharts, statechartsSection } from '../src/diagrams/readme-section.ts';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(repoRoot, 'diagrams');
const readmePath = join(repoRoot, 'README.md');

const found = await findMachines(repoRoot);
const files = diagramFiles(found);
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

const readme = await readFile(readmePath, 'utf8');
const updated = spliceStatecharts(readme, statechartsSection(found));
if (updated !== readme) {
  await writeFile(readmePath, updated);
  console.log('wrote the statecharts section of README.md');
}
console.log(`${found.length} machine diagram(s) up to date`);
