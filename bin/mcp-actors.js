#!/usr/bin/env node
// Runs src/cli/main.ts in this process with tsx's ESM loader registered, so
// signals (Ctrl-C) reach the CLI directly. Paths resolve from this file, so
// it works from any working directory.
import { register } from 'tsx/esm/api';

register();
await import(new URL('../src/cli/main.ts', import.meta.url).href);
