/**
 * Fixture child processes start from pre-bundled JavaScript, not through
 * tsx: `node --import tsx` transpiles every imported module at start-up,
 * which costs hundreds of milliseconds per child on a quiet machine and
 * seconds on a busy one (long enough to race a probe). The global setup
 * bundles each fixture entry (test/fixtures and its conformance/,
 * test/cli/fixtures, examples) with esbuild, and each run reads them from a
 * folder of its own that appears whole (two runs side by side never read
 * each other's half-written files).
 *
 * The packages are bundled too (the official SDKs, zod, redis, xstate, …):
 * Node resolving and loading hundreds of separate package modules was most
 * of a child's start, and the suite starts official servers hundreds of
 * times; one bundle cuts an official stdio server's start by about a
 * quarter of its CPU. The SDK code that runs is the installed code, only
 * concatenated. Code splitting writes what the entries share (the SDKs
 * above all) once, as chunks beside them. One package stays
 * external: puppeteer-core, which locates its files relative to itself.
 * Bundling redis (about 650 CommonJS files loaded one by one otherwise)
 * cut a Redis cluster node's start from ~0.75 to ~0.55 s CPU; src/redis
 * reads its `createClient` from a split chunk's default export too, as a
 * bundling application's would be.
 * Source maps are linked files: Node reads them only with
 * --enable-source-maps, so they cost a child nothing.
 *
 * Both bundles (these and the Inspector's below) are reused from an earlier
 * run while none of their inputs changed (bundle-cache.ts): bundling the
 * fixtures took ~1.8 s of CPU and ~1 s of wall before any test started, the
 * Inspector ~1-2 s more; linking a cached entry takes ~0.03 s. A run's
 * folder holds hard links to the entry's files.
 *
 * A test starts a fixture as `node <fixtureArgs(source)> [flags]`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stop } from 'esbuild';
import { placeBundle, type BundleCache, type BundleOutcome, type BundleSpec, type CachedBuildOptions } from './bundle-cache.ts';
import { RUN_MARKER } from './process-leaks.ts';
import { SNAPSHOT_FIXTURES } from './snapshot-fixtures.ts';

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Where one run's bundles go (git-ignored, like every .tmp/). */
const bundleDir = (runId: string) => join(REPO_ROOT, '.tmp', 'fixtures', runId);

/**
 * Bundles kept across runs: three entries of each bundle (a branch switch
 * and back reuses its own). As deep as the run folders, so the linked
 * source maps' relative paths hold in both.
 */
const CACHE: BundleCache = { root: REPO_ROOT, dir: join(REPO_ROOT, '.tmp', 'bundle-cache'), keep: 3 };

/** What steers npm's resolution without being bundled: any install rewrites the lock file. */
const LOCK_FILE = 'node_modules/.package-lock.json';

/** The run this process belongs to, as the global setup marked it. */
function currentRun(): string {
  const runId = process.env[RUN_MARKER];
  if (!runId) throw new Error(`${RUN_MARKER} is not set: fixture bundles exist only in a vitest run (test/setup/fixtures.setup.ts)`);
  return runId;
}

/** Folders whose `.ts` files (tests aside) are entry points a test may start as a child process. */
const ENTRY_DIRS = ['test/fixtures', 'test/fixtures/conformance', 'test/cli/fixtures', 'examples'];

/** Single files a test preloads into a child (`--import`): the bench's stdio tap, which watches a server's output. */
const ENTRY_FILES = ['bench/server/stdio-tap.ts'];

function entryPoints(): string[] {
  const inDirs = ENTRY_DIRS.flatMap((dir) =>
    readdirSync(join(REPO_ROOT, dir))
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts'))
      .map((name) => join(REPO_ROOT, dir, name)));
  return [...inDirs, ...ENTRY_FILES.map((file) => join(REPO_ROOT, file))];
}

/** Packages left to Node's resolution at run time (see the note at the top). */
const UNBUNDLED_PACKAGES = ['puppeteer-core'];

/** CommonJS packages inside an ES module bundle call require() for Node's built-ins; esbuild's shim uses this one. */
const REQUIRE_BANNER = { js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);" };

/**
 * What shapes a build of our sources without being bundled: the root package.json gives them their module type,
 * tsconfig.json esbuild's TypeScript settings, the lock file what npm resolved.
 */
const SOURCE_INPUTS = ['package.json', 'tsconfig.json', LOCK_FILE];

/** Places a cached build (bundle-cache.ts), then stops esbuild's service child, which would otherwise outlive the run. */
async function placeThenStop(spec: BundleSpec, to: string): Promise<BundleOutcome> {
  try {
    return await placeBundle(spec, CACHE, to);
  } finally {
    await stop();
  }
}

/**
 * Bundles every fixture entry for one run, or links the bundles of an
 * earlier run with the same inputs; rejects with esbuild's errors when one
 * does not compile.
 */
export async function bundleFixtures(runId: string): Promise<BundleOutcome> {
  const options: CachedBuildOptions = {
    entryPoints: entryPoints(),
    outbase: REPO_ROOT,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    external: UNBUNDLED_PACKAGES,
    banner: REQUIRE_BANNER,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'error',
  };
  return placeThenStop({ name: 'fixtures', options, extraInputs: SOURCE_INPUTS }, bundleDir(runId));
}

/** Where one run's snapshot goes, beside its bundles (that folder appears whole, so not inside it). */
const snapshotDir = (runId: string) => join(REPO_ROOT, '.tmp', 'fixture-snapshots', runId);

/** The snapshot's file in its folder. */
const SNAPSHOT_BLOB = 'official-server.blob';

/**
 * The V8 startup snapshot of the official-SDK stdio fixtures (official-server-snapshot.ts), built for one run or
 * linked from an earlier run's: the suite starts these fixtures about a hundred times, and each start from the
 * snapshot skips evaluating the official server package and zod, ~0.04 s of the ~0.15 s CPU a bundled start takes.
 * The snapshot is CommonJS, as Node 20's snapshot builder runs scripts only; the fixtures' code is the same
 * sources, bundled again. Keyed by Node's version too: a blob starts only the Node binary that built it.
 */
export async function snapshotFixtures(runId: string): Promise<BundleOutcome> {
  const options: CachedBuildOptions = {
    entryPoints: [join(REPO_ROOT, 'test/setup/official-server-snapshot.ts')],
    outbase: join(REPO_ROOT, 'test/setup'),
    bundle: true,
    // Its package imports are there to be evaluated into the snapshot, used or not.
    treeShaking: false,
    outExtension: { '.js': '.cjs' },
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'error',
  };
  const afterBuild = {
    id: `node --build-snapshot, ${process.version} ${process.arch}`,
    run: (outdir: string) => {
      execFileSync(process.execPath, ['--snapshot-blob', SNAPSHOT_BLOB, '--build-snapshot', 'official-server-snapshot.cjs'], { cwd: outdir, stdio: ['ignore', 'ignore', 'pipe'] });
    },
  };
  return placeThenStop({ name: 'official-snapshot', options, extraInputs: SOURCE_INPUTS, afterBuild }, snapshotDir(runId));
}

/** Removes one run's bundles and snapshot. */
export function removeFixtureBundles(runId: string): void {
  rmSync(bundleDir(runId), { recursive: true, force: true });
  rmSync(snapshotDir(runId), { recursive: true, force: true });
}

/** The bundle of one fixture source file (a file URL, or a path absolute or from the repository root) in the current run. */
export function fixtureBundle(source: string | URL): string {
  const path = source instanceof URL ? fileURLToPath(source) : source;
  return join(bundleDir(currentRun()), relative(REPO_ROOT, resolve(REPO_ROOT, path))).replace(/\.ts$/, '.mjs');
}

/**
 * What follows `node` to start a fixture (a source as `fixtureBundle` takes it) with its flags after these: its
 * bundle, started from the run's official-server snapshot when it is one of the snapshot's fixtures. The process
 * is the same fixture either way, with the same flags, readiness line and exit.
 */
export function fixtureArgs(source: string | URL): string[] {
  const bundle = fixtureBundle(source);
  if (!SNAPSHOT_FIXTURES.includes(basename(bundle))) return [bundle];
  return ['--snapshot-blob', join(snapshotDir(currentRun()), SNAPSHOT_BLOB), bundle];
}

/** The installed MCP Inspector (the interop tests' last column). */
const INSPECTOR_ROOT = join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'inspector');

/** Its launcher and the CLI client the launcher imports at run time, relative to the package root. */
const INSPECTOR_ENTRIES = ['clients/launcher/build/index.js', 'clients/cli/build/index.js'];

/**
 * The MCP Inspector's CLI, bundled like the fixtures: each Inspector call
 * is a process of its own that otherwise resolves and loads its ~900 kB CLI
 * build and the packages under it (the official client, zod, commander,
 * hono, …) module by module. Placed on first use (linked from the cache, or
 * built), by the one test file that starts the Inspector, so a run without
 * it pays nothing.
 * Launcher and CLI keep their relative places (the launcher imports
 * `../../cli/build/index.js` by a computed URL, which stays a run-time
 * import), and the package's own package.json is copied beside them: the CLI
 * reads its version from the first package.json above it named
 * `@modelcontextprotocol/inspector`, and its `"type": "module"` makes the
 * `.js` outputs ES modules. `@napi-rs/keyring` (a native addon) stays
 * external and loads, only when wanted, from the installed package.
 * Returns the bundled launcher's path: a test starts it as
 * `node <path> --cli …`, exactly as the installed `mcp-inspector` bin.
 */
export async function inspectorLauncherBundle(): Promise<string> {
  const outdir = join(bundleDir(currentRun()), 'inspector');
  const launcher = join(outdir, INSPECTOR_ENTRIES[0]!);
  // The folder appears whole (bundle-cache.ts links beside it, then renames).
  if (existsSync(launcher)) return launcher;
  const options: CachedBuildOptions = {
    entryPoints: INSPECTOR_ENTRIES.map((entry) => join(INSPECTOR_ROOT, entry)),
    outbase: INSPECTOR_ROOT,
    bundle: true,
    splitting: true,
    external: ['@napi-rs/keyring', 'readline/promises'],
    banner: REQUIRE_BANNER,
    // Whitespace and comments only, names and syntax kept: each call parses the whole 2.6 MB CLI bundle (3.6 MB
    // unminified); measured about 0.07 s CPU less per call.
    minifyWhitespace: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
  };
  const manifest = relative(REPO_ROOT, join(INSPECTOR_ROOT, 'package.json'));
  await placeThenStop({ name: 'inspector', options, extraInputs: [LOCK_FILE], copies: [{ from: manifest, to: 'package.json' }] }, outdir);
  return launcher;
}

/**
 * The official 2.x client bundled for a browser page (test/fixtures/browser/official-client-page.ts): one ES module
 * file, placed on first use like the Inspector's bundle, for the one test file that has Chromium run it. Returns the
 * file's path; the test serves it to the page.
 */
export async function browserClientBundle(): Promise<string> {
  const outdir = join(bundleDir(currentRun()), 'browser-client');
  const page = join(outdir, 'official-client-page.js');
  if (existsSync(page)) return page;
  const options: CachedBuildOptions = {
    entryPoints: [join(REPO_ROOT, 'test', 'fixtures', 'browser', 'official-client-page.ts')],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'chrome120',
    logLevel: 'error',
  };
  await placeThenStop({ name: 'browser-client', options, extraInputs: [...SOURCE_INPUTS] }, outdir);
  return page;
}
