/**
 * The consumer test (`npm run test:consumer`; .ci/run runs it): packs this
 * repository as npm would publish it, installs the tarball into fresh
 * temporary projects with npm and with pnpm (no hoisting, so an undeclared
 * dependency fails), and uses it there as a Node service would, under this
 * Node and under each other release `engines` names a bound of or that leads
 * a later LTS line (OTHER_NODES). Every check is its own step; a failing step
 * says what failed and the others still run.
 *
 *   npx tsx test/consumer/run.ts [--keep]   (--keep: leave the temporary projects for a look)
 *
 * Prints one line per step and `consumer test: N steps passed, M failed`;
 * writes the counts to .tmp/consumer.json for .ci/run's closing line. Needs
 * only the npm registry (pnpm comes from devDependencies, the other Node
 * binaries from its node-<platform>-<arch> packages).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertSucceeded, Child, cleanEnv, runInstall, runToEnd } from './child.ts';
import { checkClientOutput, checkTarball, checkTypeDiagnostics, type PackedFile } from './checks.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PROJECT_FILES = fileURLToPath(new URL('./project', import.meta.url));
const BIN = (name: string) => join(ROOT, 'node_modules', '.bin', name);
const versionOf = (name: string) => (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
const INSTALL_MS = 240_000;
const RUN_MS = 60_000;
const TSC_MS = 180_000;

const work = mkdtempSync(join(tmpdir(), 'mcp-actors-consumer-'));
const results: { name: string; ok: boolean }[] = [];

async function step(name: string, body: () => Promise<string | void>): Promise<boolean> {
  const started = Date.now();
  try {
    const detail = await body();
    console.log(`ok   ${name}${detail ? ` — ${detail}` : ''} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    results.push({ name, ok: true });
    return true;
  } catch (error) {
    console.log(`FAIL ${name}: ${error instanceof Error ? error.message : String(error)}`);
    results.push({ name, ok: false });
    return false;
  }
}

let tarball = '';
await step('pack: npm pack holds dist/, README, LICENSE, CHANGELOG, package.json and nothing of the repository else', async () => {
  const packed = assertSucceeded(await runToEnd('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT, timeoutMs: INSTALL_MS }), 'npm pack');
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [{ filename: string; files: PackedFile[]; size: number }];
  tarball = join(work, info.filename);
  return `${checkTarball(info.files)}, ${(info.size / 1024).toFixed(0)} kB packed`;
});

await step('attw: no problem for ".", "./server" under node16 (ESM) and bundler', async () => {
  // node16 from CommonJS is judged by attw's TypeScript 5.6, which predates require() of ES modules
  // (TypeScript 5.8 under `module: nodenext`); the typed consumer below compiles a .cts that does it.
  const checked = await runToEnd(BIN('attw'), [tarball, '--profile', 'node16', '--ignore-rules', 'cjs-resolves-to-esm', '--no-color', '--no-emoji'], { cwd: work, timeoutMs: RUN_MS });
  assertSucceeded(checked, 'attw');
});

await step('publint --strict: no error or warning', async () => {
  const linted = assertSucceeded(await runToEnd(BIN('publint'), ['run', tarball, '--strict'], { cwd: work, timeoutMs: RUN_MS }), 'publint');
  if (!/All good/.test(linted.stdout)) throw new Error(`publint printed:\n${linted.stdout}`);
});

interface Manager {
  name: 'npm' | 'pnpm';
  install(dir: string, specs: string[], dev: boolean): Promise<void>;
  runtimePackages(dir: string): Promise<number>;
}

const npm: Manager = {
  name: 'npm',
  async install(dir, specs, dev) {
    const args = ['install', '--no-audit', '--no-fund', ...(dev ? ['--save-dev'] : []), ...specs];
    assertSucceeded(await runInstall('npm', args, { cwd: dir, timeoutMs: INSTALL_MS }), `npm ${args.join(' ')}`);
  },
  async runtimePackages(dir) {
    const listed = assertSucceeded(await runToEnd('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: dir, timeoutMs: RUN_MS }), 'npm ls');
    return listed.stdout.trim().split('\n').length - 1;
  },
};

const pnpm: Manager = {
  name: 'pnpm',
  async install(dir, specs, dev) {
    // No hoisting at all: a package sees only what it declares.
    const args = ['add', '--config.hoist=false', '--config.public-hoist-pattern=', '--store-dir', join(work, 'pnpm-store'), ...(dev ? ['--save-dev'] : []), ...specs];
    assertSucceeded(await runInstall(BIN('pnpm'), args, { cwd: dir, timeoutMs: INSTALL_MS }), `pnpm ${args.join(' ')}`);
  },
  async runtimePackages(dir) {
    // One folder per installed package in the virtual store (`pnpm ls --parseable` repeats a package per path that reaches it).
    return readdirSync(join(dir, 'node_modules', '.pnpm'), { withFileTypes: true }).filter((entry) => entry.isDirectory() && entry.name !== 'node_modules').length;
  },
};

/**
 * The installed package used as a service would, by `node` (a path): an ES module and a CommonJS client each
 * starting a stdio server from a second file, an HTTP server and client in one process, and the CLI's bin
 * through npx. The bin's `#!/usr/bin/env node` and
 * the `node` it starts a server with are the first on PATH, so that directory goes first.
 */
async function runAsAService(dir: string, label: (what: string) => string, node: string): Promise<void> {
  const env = { ...cleanEnv(), PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}` };
  const clients = [
    ['client.mjs', 'import: a stdio server from a second file'],
    ['client.cjs', 'require(): a stdio server from a second file'],
    ['http-client.mjs', 'our server on loopback HTTP, reached with this Node\'s fetch'],
  ] as const;
  for (const [file, kind] of clients) {
    await step(label(`${file} (${kind}): tools listed, one tools/list_changed via listen and via subscribeNotifications`), async () => {
      const ran = assertSucceeded(await runToEnd(node, [file], { cwd: dir, env, timeoutMs: RUN_MS }), `node ${file}`);
      return checkClientOutput(ran.stdout);
    });
  }

  await step(label('npx mcp-actors watch -- node server.mjs prints the connected line'), async () => {
    const watch = new Child('npx', ['--no', 'mcp-actors', 'watch', '--', 'node', 'server.mjs'], { cwd: dir, env, timeoutMs: RUN_MS });
    try {
      // Either era: a server of the user's gets the default 2 s probe, which a very busy machine can outlast.
      await watch.waitFor(/connected era (modern|legacy)/);
    } finally {
      // npx, the watcher and the server it started; Ctrl-C and exit codes are the CLI tests' business.
      watch.kill('SIGTERM');
      await watch.finished;
    }
    return watch.stdout.split('\n').find((line) => line.includes('connected'))?.trim();
  });
}

/** The xstate-only project's diagnostics, computed once (see checkTypeDiagnostics). */
let xstateAlone: string[] | undefined;

for (const manager of tarball ? [npm, pnpm] : []) {
  const dir = join(work, `${manager.name}-consumer`);
  const label = (what: string) => `${manager.name}: ${what}`;
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: `${manager.name}-consumer`, version: '1.0.0', private: true }, null, 2)}\n`);
  for (const file of readdirSync(PROJECT_FILES)) copyFileSync(join(PROJECT_FILES, file), join(dir, file));

  const installed = await step(label('install the tarball'), async () => {
    await manager.install(dir, [tarball], false);
    const size = assertSucceeded(await runToEnd('du', ['-sh', 'node_modules'], { cwd: dir, timeoutMs: RUN_MS }), 'du');
    return `node_modules ${size.stdout.split('\t')[0]}, ${await manager.runtimePackages(dir)} runtime packages`;
  });
  if (!installed) continue;

  await runAsAService(dir, label, process.execPath);

  await step(label('npx mcp-actors watch --inspect: the local page ships in the package and is served on loopback'), async () => {
    const watch = new Child('npx', ['--no', 'mcp-actors', 'watch', '--inspect', '--inspect-port', '0', '--', 'node', 'server.mjs'], { cwd: dir, timeoutMs: RUN_MS });
    try {
      await watch.waitFor(/inspector open http:\/\/127\.0\.0\.1:\d+\//);
      const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(watch.stdout)![0];
      const page = await fetch(url);
      const html = await page.text();
      if (page.status !== 200 || !html.includes('<title>mcp-actors inspector</title>')) throw new Error(`expected the inspector page at ${url}, got ${page.status}:\n${html.slice(0, 200)}`);
      return `${url} answers ${html.length} bytes of HTML`;
    } finally {
      watch.kill('SIGTERM');
      await watch.finished;
    }
  });

  const typed = await step(label('install typescript and @types/node for the typed consumer'), () =>
    manager.install(dir, [`typescript@${versionOf('typescript')}`, `@types/node@${versionOf('@types/node')}`], true),
  );
  if (!typed) continue;
  const tsc = async (config: string) => {
    const checked = await runToEnd(process.execPath, [join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config, '--pretty', 'false'], { cwd: dir, timeoutMs: TSC_MS });
    if (checked.code !== 0 && checked.code !== 2) assertSucceeded(checked, `tsc -p ${config}`);
    return checked.stdout.split('\n').filter((line) => /error TS\d+/.test(line));
  };
  xstateAlone ??= await tsc('tsconfig.xstate-alone.json');
  for (const resolution of ['nodenext', 'bundler']) {
    await step(label(`tsc --noEmit, ${resolution}, strict + exactOptionalPropertyTypes + noUncheckedIndexedAccess, skipLibCheck false`), async () =>
      checkTypeDiagnostics(await tsc(`tsconfig.${resolution}.json`), xstateAlone ?? []),
    );
  }
}

/**
 * The Node releases the package's `engines` ("^20.19.0 || >=22.12.0") admits besides the one running this test:
 * the lower bound of each range (require() of an ES module, which client.cjs does, is unflagged from 20.19 and
 * 22.12) and the newest release of each later LTS line. Their binaries come from the npm registry's
 * node-<platform>-<arch> packages, the one network CI has.
 */
const OTHER_NODES = ['20.19.0', '22.12.0', '24.22.3', '26.12.1'];

if (tarball) {
  const consumer = join(work, 'npm-consumer');
  for (const version of OTHER_NODES.filter((version) => `v${version}` !== process.version)) {
    const label = (what: string) => `node ${version}: ${what}`;
    const prefix = join(work, `node-${version}`);
    const node = join(prefix, 'node_modules', `node-${process.platform}-${process.arch}`, 'bin', 'node');
    const installed = await step(label(`node-${process.platform}-${process.arch}@${version} from the registry`), async () => {
      mkdirSync(prefix);
      writeFileSync(join(prefix, 'package.json'), `${JSON.stringify({ name: `node-${version}`, version: '1.0.0', private: true }, null, 2)}\n`);
      await npm.install(prefix, [`node-${process.platform}-${process.arch}@${version}`], false);
      const ran = assertSucceeded(await runToEnd(node, ['--version'], { cwd: prefix, timeoutMs: RUN_MS }), `${node} --version`);
      if (ran.stdout.trim() !== `v${version}`) throw new Error(`${node} --version printed ${ran.stdout.trim()}`);
    });
    if (installed) await runAsAService(consumer, label, node);
    // About 200 MB each.
    rmSync(prefix, { recursive: true, force: true });
  }
}

// Two installs of the package in one process (a dependency bringing its own copy): `instanceof` cannot hold
// across them, the `Symbol.for` brand must.
if (tarball) {
  const first = join(work, 'npm-consumer');
  const second = join(work, 'second-copy');
  mkdirSync(second);
  writeFileSync(join(second, 'package.json'), `${JSON.stringify({ name: 'second-copy', version: '1.0.0', private: true }, null, 2)}\n`);
  await step('npm: two installed copies: isMcpActorsError recognises the other copy\'s errors, instanceof does not', async () => {
    await npm.install(second, [tarball], false);
    const ran = assertSucceeded(await runToEnd(process.execPath, ['two-copies.mjs', join(second, 'package.json')], { cwd: first, timeoutMs: RUN_MS }), 'node two-copies.mjs');
    return ran.stdout.trim();
  });
}

const failed = results.filter((result) => !result.ok).length;
mkdirSync(join(ROOT, '.tmp'), { recursive: true });
writeFileSync(join(ROOT, '.tmp', 'consumer.json'), JSON.stringify({ passed: results.length - failed, failed }));
if (process.argv.includes('--keep')) console.log(`projects kept in ${work}`);
else rmSync(work, { recursive: true, force: true });
console.log(`consumer test: ${results.length - failed} steps passed, ${failed} failed`);
process.exitCode = failed === 0 && results.length > 0 ? 0 : 1;
