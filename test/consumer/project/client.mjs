import { fileURLToPath } from 'node:url';
import * as lib from 'mcp-actors';
import * as testing from 'mcp-actors/testing';
import { run } from './scenario.cjs';

// The testing entry resolves and exports what its documentation names.
for (const name of ['createTestClient', 'createTestChangeCache', 'SimulatedClock', 'inMemoryTransport', 'connectionActorOf', 'streamActorOf']) {
  if (typeof testing[name] !== 'function') throw new Error(`mcp-actors/testing does not export ${name}`);
}
await run(lib, { serverFile: fileURLToPath(new URL('./server.mjs', import.meta.url)) });
