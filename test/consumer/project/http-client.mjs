// The consumer's client over loopback HTTP: our server listening in this
// process (listenHttp on a free port, a fresh one per era), our client
// reaching it with Node's own fetch.
import * as lib from 'mcp-actors';
import { createServer } from 'mcp-actors/server';
import { run } from './scenario.cjs';
import { build } from './server-tools.cjs';

const servers = [];
try {
  await run(lib, {
    async url() {
      const server = build({ createServer });
      servers.push(server);
      return (await server.listenHttp({ port: 0 })).url;
    },
  });
} finally {
  await Promise.all(servers.map((server) => server.close()));
}
