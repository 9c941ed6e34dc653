// A typed CommonJS consumer (compiled to require()): TypeScript 5.8+ under
// `module: nodenext` accepts require() of an ES module, as Node 20.19+ runs it.
import { createClient, stdioTransport, type ClientOptions } from 'mcp-actors';
import { createServer } from 'mcp-actors/server';

const options: ClientOptions = { transport: stdioTransport({ command: 'node', args: ['server.cjs'] }), era: 'legacy' };
export const client = createClient(options);
export const server = createServer({ name: 'typed-cjs', version: '1.0.0' });
