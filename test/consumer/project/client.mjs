import { fileURLToPath } from 'node:url';
import * as lib from 'mcp-actors';
import { run } from './scenario.cjs';

await run(lib, fileURLToPath(new URL('./server.mjs', import.meta.url)));
