#!/usr/bin/env node
// The `mcp-actors` command: the compiled CLI, run in this process with plain
// node, so signals (Ctrl-C) reach it directly. Paths resolve from this file,
// so it works from any working directory. In a git checkout, dist/ exists
// once `npm run build` has run (`npm start` and `npm test` run it).
import { existsSync } from 'node:fs';

const main = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('mcp-actors: dist/ is not built; run `npm run build` in the package first\n');
  process.exit(1);
}
await import(main.href);
