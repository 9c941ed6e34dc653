/**
 * The entry of the V8 startup snapshot the official-SDK stdio fixtures start from (fixtureArgs in fixture-bundle.ts): the
 * official server package, its stdio transport and zod are evaluated once, when the snapshot is built, instead of
 * at every start. A fixture itself runs only when a process starts from the snapshot: the snapshot's main function
 * picks it by the name of the script path the process was given (`node --snapshot-blob BLOB <path>/NAME.mjs
 * [flags]`, the path of the fixture's own bundle), so its flags and its start are exactly those of the bundle.
 */
import { basename } from 'node:path';
import { startupSnapshot } from 'node:v8';
import * as server from '@modelcontextprotocol/server';
import * as stdio from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';
import { SNAPSHOT_FIXTURES } from './snapshot-fixtures.ts';

/** The fixtures a snapshot process can be, by their bundle's name. */
const FIXTURES: Record<string, () => Promise<unknown>> = {
  'official-stdio-server.mjs': () => import('../fixtures/official-stdio-server.ts'),
  'official-changing-server.mjs': () => import('../cli/fixtures/official-changing-server.ts'),
};

// fixture-bundle.ts starts these names from the snapshot: a name it lists that this cannot start fails the build.
const missing = SNAPSHOT_FIXTURES.filter((name) => !(name in FIXTURES));
if (missing.length > 0) throw new Error(`official-server-snapshot: no fixture for ${missing.join(', ')}`);

// The packages are imported for their evaluation only; fixture-bundle.ts bundles this without tree shaking, so
// they stay in the snapshot's eagerly evaluated part. (No exports: the snapshot builder runs a script, not a module.)
void [server, stdio, z];

startupSnapshot.setDeserializeMainFunction(() => {
  const start = FIXTURES[basename(process.argv[1] ?? '')];
  if (start === undefined) {
    process.stderr.write(`official-server-snapshot: no fixture named ${process.argv[1]}\n`);
    process.exit(2);
  }
  start().catch((error: unknown) => {
    process.stderr.write(`official-server-snapshot: ${String(error)}\n`);
    process.exit(1);
  });
});
