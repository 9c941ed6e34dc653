/**
 * `serveStdio` reads any Readable: one that hands over strings (set to an
 * encoding) is served as one that hands over bytes.
 */
import { PassThrough } from 'node:stream';
import { createInterface } from 'node:readline';
import { afterEach, expect, it } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import { buildFixtureServer } from '../fixtures/own-server-setup.ts';
import { modernMeta } from './raw-stdio-peer.ts';

let server: McpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

it('serves requests read from a stream of strings, a line split across two of them included', async () => {
  server = buildFixtureServer();
  const line = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { _meta: modernMeta(), name: 'echo', arguments: { text: 'é€😀' } } });
  // A stream set to an encoding: 'data' hands over strings.
  const stdin = new PassThrough({ encoding: 'utf8' });
  const stdout = new PassThrough();
  server.serveStdio({ stdin, stdout });
  stdin.write(line.slice(0, 40));
  stdin.write(`${line.slice(40)}\n`);
  const [answer] = (await new Promise<string[]>((resolve) => createInterface({ input: stdout }).once('line', (text) => resolve([text])))) as [string];
  expect(JSON.parse(answer)).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'é€😀' }] } });
});
