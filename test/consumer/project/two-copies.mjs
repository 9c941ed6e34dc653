// Loads mcp-actors twice, this project's copy and the one installed beside the package.json given as argv[2],
// and checks the error brand across them. Prints one summary line; exits 1 on a wrong answer.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import * as mine from 'mcp-actors';
import * as mineServer from 'mcp-actors/server';

const other = createRequire(process.argv[2]);
const theirs = await import(pathToFileURL(other.resolve('mcp-actors')).href);
const theirsServer = await import(pathToFileURL(other.resolve('mcp-actors/server')).href);

const fromMine = new mine.RequestTimeoutError('tools/list', 5);
const wireFromMine = new mineServer.InvalidParamsError('bad');
const checks = {
  'two module instances': theirs.McpActorsError !== mine.McpActorsError,
  'instanceof fails across copies': !(fromMine instanceof theirs.McpActorsError),
  'the other copy recognises a client error': theirs.isMcpActorsError(fromMine) === true,
  'the other copy recognises a server wire error': theirsServer.isMcpActorsError(wireFromMine) === true,
  'code survives': fromMine.code === 'request_timeout' && wireFromMine.code === 'invalid_params',
  'a plain Error is not one': theirs.isMcpActorsError(new Error('x')) === false,
  'a look-alike object is not one': theirs.isMcpActorsError({ name: 'RequestTimeoutError', code: 'request_timeout' }) === false,
};
const failed = Object.entries(checks).filter(([, ok]) => !ok).map(([name]) => name);
if (failed.length > 0) {
  console.log(`wrong: ${failed.join('; ')}`);
  process.exitCode = 1;
} else console.log(`${Object.keys(checks).length} checks held across two copies`);
