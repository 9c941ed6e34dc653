/**
 * What the compiled package loads when it starts, observed in a real node
 * child: every module the ESM loader resolves (a resolve hook registered with
 * `module.register`, which Node 20 has) and every CommonJS module in the
 * require cache at exit (ajv is CommonJS). Importing the client must not
 * load ajv (it is imported when a server request is first checked) nor
 * oauth4webapi (imported for a transport that has an auth provider), nor
 * `--help` the client and xstate: users pay for each module on every import
 * and every CLI start. The server imports ajv statically (defining a tool
 * checks its schema synchronously, and a bundler must see the import): the
 * control case, which shows the probe does see ajv. Defining plain tool
 * schemas (src/server/plain-schema.ts) does not compile a meta-schema: that
 * compile was most of a server's start-up CPU.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin', 'mcp-actors.js');
const CLIENT_ENTRY = pathToFileURL(join(ROOT, 'dist/src/index.js')).href;
const SERVER_ENTRY = pathToFileURL(join(ROOT, 'dist/src/server/index.js')).href;

// Runs in the loader's hooks thread: each resolved URL, one per line, to the file the child was told.
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.START_COST_OUT, resolved.url + '\\n');
  return resolved;
}`;
// Preloaded with --import: registers the hooks, and adds the CommonJS modules loaded by the time the process exits.
const PRELOAD = `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});
const cache = createRequire(process.cwd() + '/').cache;
process.on('exit', () => appendFileSync(process.env.START_COST_OUT, Object.keys(cache).join('\\n') + '\\n'));`;

const dir = mkdtempSync(join(tmpdir(), 'mcp-actors-start-cost-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let runs = 0;

/** The modules (URLs and paths, relative to the package) a node child loads running `args`; fails if it does not exit 0. */
async function modulesLoaded(args: string[]): Promise<string[]> {
  const out = join(dir, `run-${runs++}.txt`);
  const child = spawn(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(PRELOAD)}`, ...args], {
    cwd: ROOT,
    env: { ...process.env, START_COST_OUT: out },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  expect(code, stderr).toBe(0);
  const loaded = readFileSync(out, 'utf8').split('\n').filter((line) => line !== '');
  return [...new Set(loaded.map((line) => (line.startsWith('file:') ? fileURLToPath(line) : line).replace(ROOT, '')))];
}

const evaluate = (script: string) => ['--input-type=module', '-e', script];
const ajvIn = (modules: string[]) => modules.filter((path) => path.includes('node_modules/ajv/') || path.includes('node_modules/ajv-formats/'));

describe('start cost of the compiled package', () => {
  it('importing mcp-actors (the client entry) does not load ajv, nor oauth4webapi (loaded for a transport with an auth provider)', async () => {
    const modules = await modulesLoaded(evaluate(`await import(${JSON.stringify(CLIENT_ENTRY)});`));
    expect(modules).toContain('dist/src/client/client.js');
    expect(ajvIn(modules)).toEqual([]);
    expect(modules).toContain('dist/src/transport/auth/http-hook.js');
    expect(modules.filter((path) => path.includes('node_modules/oauth4webapi/') || path.startsWith('dist/src/transport/auth/authorizer'))).toEqual([]);
  });

  it('importing mcp-actors/server loads ajv (the control: the probe sees it)', async () => {
    const server = await modulesLoaded(evaluate(`await import(${JSON.stringify(SERVER_ENTRY)});`));
    expect(server).toContain('dist/src/server/server.js');
    expect(ajvIn(server)).toContain('node_modules/ajv/dist/2020.js');
  });

  it('mcp-actors --help loads neither the client, the machines, xstate nor ajv', async () => {
    const modules = await modulesLoaded([BIN, '--help']);
    expect(modules).toContain('dist/src/cli/args.js');
    expect(modules.filter((path) => /dist\/src\/(client|transport|inspector)\/|\.machine\.js$|node_modules\/(xstate|@xstate|ajv|oauth4webapi)\//.test(path))).toEqual([]);
  });
});

const DEMO_CATALOG = pathToFileURL(join(ROOT, 'dist/src/demo/demo-catalog.js')).href;
const PATTERN_SCHEMA = { type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]{3}$' } } };

/**
 * In one node child: creates the compiled demo server, then defines a tool whose schema has `pattern`, and
 * returns how many times ajv had checked a schema against its meta-schema after each (every dialect's class
 * shares ajv's core `validateSchema`, which the child counts).
 */
async function metaSchemaChecks(): Promise<{ demo: number; withPattern: number }> {
  const script = `import { Ajv2020 } from 'ajv/dist/2020.js';
const core = Object.getPrototypeOf(Ajv2020.prototype);
const validateSchema = core.validateSchema;
let checks = 0;
core.validateSchema = function (...args) { checks++; return validateSchema.apply(this, args); };
const { createDemoServer } = await import(${JSON.stringify(DEMO_CATALOG)});
const demo = createDemoServer();
const afterDemo = checks;
demo.server.defineTool('extra', { description: 'extra', inputSchema: ${JSON.stringify(PATTERN_SCHEMA)} }, () => ({ content: [] }));
process.stdout.write(JSON.stringify({ demo: afterDemo, withPattern: checks }));`;
  const child = spawn(process.execPath, evaluate(script), { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as { demo: number; withPattern: number };
}

describe('start cost of defining tools', () => {
  let checks: { demo: number; withPattern: number };
  beforeAll(async () => {
    checks = await metaSchemaChecks();
  });

  it('the demo server’s plain tool schemas are compiled without a meta-schema check', () => {
    expect(checks.demo).toBe(0);
  });

  it('a schema with a keyword outside the plain set is checked against its meta-schema (the control)', () => {
    expect(checks.withPattern).toBeGreaterThan(checks.demo);
  });
});
