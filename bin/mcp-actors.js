#!/usr/bin/env node
// Runs src/cli/main.ts under tsx from wherever the command is started: both
// paths are resolved from this file, never from the working directory.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const tsx = import.meta.resolve('tsx');

const child = spawn(process.execPath, ['--import', tsx, main, ...process.argv.slice(2)], { stdio: 'inherit' });

// The terminal sends Ctrl-C to the whole process group; the child handles it, so only wait for it here.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (signal !== 'SIGINT') child.kill(signal);
  });
}
child.on('exit', (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
