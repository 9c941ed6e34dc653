/**
 * A scripted stdio peer and an in-process fixture server made for one test
 * and gone after it (the peer killed, the server closed).
 */
import { afterEach } from 'vitest';
import type { McpServer } from '../../src/server/index.ts';
import { buildFixtureServer, type FixtureOptions } from '../fixtures/own-server-setup.ts';
import { RawStdioPeer } from './raw-stdio-peer.ts';

/** Registers the cleanup; call at the top level of a test file. */
export function perTestPeers(): { peer(args?: string[]): RawStdioPeer; server(options?: FixtureOptions): McpServer } {
  let peer: RawStdioPeer | undefined;
  let server: McpServer | undefined;
  afterEach(async () => {
    peer?.kill();
    peer = undefined;
    await server?.close();
    server = undefined;
  });
  return {
    peer: (args) => (peer = new RawStdioPeer(args)),
    server: (options) => (server = buildFixtureServer(options)),
  };
}
