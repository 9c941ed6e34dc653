/**
 * The bundle cache (bundle-cache.ts) against real esbuild builds of a small
 * project in a scratch folder: an entry that imports a local module and a
 * package. esbuild's service is a child process, hence `.process.`.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { stop } from 'esbuild';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { placeBundle, type BundleCache, type BundleSpec, type CachedBuildOptions } from './bundle-cache.ts';

let root: string;
let cache: BundleCache;
/** Each edit gets an mtime of its own, an hour back: made before the build, as a developer's edits are. */
let clock = Date.now() - 3_600_000;
let runs = 0;

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
  setMtime(path);
}

function setMtime(path: string, at = (clock += 1_000)): void {
  utimesSync(join(root, path), at / 1000, at / 1000);
}

const OPTIONS: CachedBuildOptions = { entryPoints: ['entry.ts'], bundle: true, format: 'esm', platform: 'node', logLevel: 'silent' };
const spec = (options: CachedBuildOptions = OPTIONS): BundleSpec => ({
  name: 'demo',
  options,
  extraInputs: ['package-lock.json'],
  copies: [{ from: 'manifest.json', to: 'manifest.json' }],
});

/** One run: places the bundle in a folder of its own and returns what it did and what the bundle says. */
async function run(options?: CachedBuildOptions) {
  const to = join(root, 'runs', String((runs += 1)));
  const outcome = await placeBundle(spec(options), cache, to);
  return { ...outcome, to, bundle: readFileSync(join(to, 'entry.js'), 'utf8') };
}

const entries = () => readdirSync(cache.dir).filter((name) => name.startsWith('demo-'));

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bundle-cache-'));
  cache = { root, dir: join(root, 'cache'), keep: 2 };
  write('entry.ts', "import { said } from './dep.ts';\nimport { pkg } from 'pkg';\nconsole.log(said, pkg);\n");
  write('dep.ts', "export const said = 'first';\n");
  write('node_modules/pkg/package.json', '{ "name": "pkg", "main": "index.js" }');
  write('node_modules/pkg/index.js', "exports.pkg = 'pkg-one';\n");
  write('manifest.json', '{ "version": 1 }');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));
// The builds share esbuild's service child; it would outlive the file.
afterAll(() => stop());

describe('a bundle cache', () => {
  it('links the same entry into every run while no input changed', async () => {
    const first = await run();
    const second = await run();
    expect([first.reused, second.reused, second.entry]).toEqual([false, true, first.entry]);
    expect(second.bundle).toBe(first.bundle);
    expect(first.bundle).toContain('first');
    // Hard links: the run's file is the entry's file, not a copy.
    expect(statSync(join(second.to, 'entry.js')).ino).toBe(statSync(join(cache.dir, first.entry!, 'entry.js')).ino);
    expect(readFileSync(join(second.to, 'manifest.json'), 'utf8')).toBe('{ "version": 1 }');
  });

  it('rebuilds when a bundled source changes, even at the same size', async () => {
    const first = await run();
    write('dep.ts', "export const said = 'other';\n");
    const second = await run();
    expect(second.reused).toBe(false);
    expect(second.bundle).toContain('other');
    expect(second.entry).not.toBe(first.entry);
  });

  it('reuses a file touched or written again with the same content', async () => {
    const first = await run();
    setMtime('dep.ts');
    write('node_modules/pkg/index.js', "exports.pkg = 'pkg-one';\n");
    expect(await run()).toMatchObject({ reused: true, entry: first.entry });
  });

  it('rebuilds when a package, an extra input or a copied file changes', async () => {
    await run();
    write('node_modules/pkg/index.js', "exports.pkg = 'pkg-two';\n");
    const pkg = await run();
    write('package-lock.json', '{}'); // absent before
    const lock = await run();
    write('manifest.json', '{ "version": 2 }');
    const copied = await run();
    expect([pkg.reused, lock.reused, copied.reused]).toEqual([false, false, false]);
    expect(pkg.bundle).toContain('pkg-two');
    expect(readFileSync(join(copied.to, 'manifest.json'), 'utf8')).toBe('{ "version": 2 }');
  });

  it('keys entries by the build options', async () => {
    const plain = await run();
    const minified = await run({ ...OPTIONS, minify: true });
    expect(minified.reused).toBe(false);
    expect(minified.entry).not.toBe(plain.entry);
    expect(await run()).toMatchObject({ reused: true, entry: plain.entry });
  });

  it('finds the earlier entry again when the sources go back', async () => {
    const first = await run();
    write('dep.ts', "export const said = 'later';\n");
    await run();
    write('dep.ts', "export const said = 'first';\n");
    expect(await run()).toMatchObject({ reused: true, entry: first.entry });
  });

  it('keeps the most recently used entries only, and a run keeps its files when its entry goes', async () => {
    const oldest = await run();
    write('dep.ts', "export const said = 'two';\n");
    await run();
    write('dep.ts', "export const said = 'three';\n");
    await run();
    expect(entries()).toHaveLength(2);
    expect(entries()).not.toContain(oldest.entry);
    expect(readFileSync(join(oldest.to, 'entry.js'), 'utf8')).toBe(oldest.bundle);
  });

  it('gives two runs that miss at once whole bundles and one entry', async () => {
    const [a, b] = await Promise.all([run(), run()]);
    expect([a.reused, b.reused, a.entry]).toEqual([false, false, b.entry]);
    expect(a.bundle).toBe(b.bundle);
    expect(entries()).toHaveLength(1);
    expect(readdirSync(cache.dir).filter((name) => !name.startsWith('demo-'))).toEqual([]);
  });

  it('does not keep a build whose input may have changed while it ran', async () => {
    setMtime('dep.ts', Date.now() + 60_000); // stamped after the build started
    const first = await run();
    expect(first).toMatchObject({ reused: false, entry: undefined });
    expect(first.bundle).toContain('first');
    expect(readdirSync(cache.dir)).toEqual([]);
    expect(await run()).toMatchObject({ reused: false });
  });

  it('keeps what the after-build step writes in the entry, runs it on builds only, and keys entries by its id', async () => {
    let steps = 0;
    const withStep = (id: string): BundleSpec => ({
      ...spec(),
      afterBuild: { id, run: (outdir) => writeFileSync(join(outdir, 'step.txt'), `${id} after ${readFileSync(join(outdir, 'entry.js'), 'utf8').length} bytes (${(steps += 1)})`) },
    });
    const place = async (id: string) => {
      const to = join(root, 'runs', String((runs += 1)));
      return { ...(await placeBundle(withStep(id), cache, to)), step: readFileSync(join(to, 'step.txt'), 'utf8') };
    };
    const first = await place('node 20');
    const again = await place('node 20');
    const other = await place('node 22');
    expect([first.reused, again.reused, other.reused]).toEqual([false, true, false]);
    expect(first.step).toMatch(/^node 20 after \d+ bytes \(1\)$/);
    expect(again.step).toBe(first.step);
    expect(other.step).toMatch(/^node 22 after \d+ bytes \(2\)$/);
    // Without a step, a third key: the plain build is an entry of its own.
    expect((await run()).reused).toBe(false);
    expect(steps).toBe(2);
  });

  it('leaves nothing behind when the after-build step fails', async () => {
    const failing: BundleSpec = { ...spec(), afterBuild: { id: 'fails', run: () => { throw new Error('snapshot failed'); } } };
    const to = join(root, 'runs', 'failed-step');
    await expect(placeBundle(failing, cache, to)).rejects.toThrow('snapshot failed');
    expect(readdirSync(cache.dir)).toEqual([]);
    expect(existsSync(to)).toBe(false);
  });

  it('rejects with esbuild errors and leaves nothing behind when the build fails', async () => {
    write('dep.ts', 'export const = ;\n');
    const to = join(root, 'runs', 'failed');
    await expect(placeBundle(spec(), cache, to)).rejects.toThrow(/Build failed/);
    expect(readdirSync(cache.dir)).toEqual([]);
    expect(existsSync(to)).toBe(false);
  });
});
