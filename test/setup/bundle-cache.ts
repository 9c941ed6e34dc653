/**
 * esbuild outputs reused across test runs while nothing that went into them
 * changed, as build tools do (fixture-bundle.ts bundles through it).
 *
 * An entry is a folder `<name>-<digest>` in the cache folder, and is never
 * written once there: a build writes into a `.build-…` folder beside it and
 * renames it into place, so a run never reads half an entry. Two runs that
 * miss at once both build; the second rename finds the entry there and drops
 * its own copy (same digest, same inputs). The entry's `.inputs.json` holds
 * its key (esbuild's version, the build options, the files copied in) and
 * every input: each file esbuild's metafile lists plus the spec's extra
 * inputs (package.json, lock file: what steers resolution without being
 * bundled), with size, mtime and content hash. The digest names the content,
 * so going back to earlier sources finds the earlier entry again.
 *
 * An entry is reused when its key matches and every input is unchanged: same
 * size, and same mtime or else (touched, checked out again) same content. A
 * build whose inputs changed while it ran is used once and not kept.
 *
 * A run gets hard links to the entry's files (a copy across devices) in a
 * folder of its own: removing that folder is the run's cleanup, and pruning
 * an entry (the newest `keep` of a name stay) never takes files from a run.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  chmodSync, copyFileSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { build, version, type BuildOptions } from 'esbuild';

/**
 * esbuild options of a cached build; the cache sets where it writes, its
 * working directory and its metafile. No plugins: the key is the options as
 * JSON, and a plugin's code would not be in it.
 */
export type CachedBuildOptions = Omit<BuildOptions, 'outdir' | 'outfile' | 'write' | 'metafile' | 'absWorkingDir' | 'plugins'>;

/** One cached build. Paths are relative to the cache's root. */
export interface BundleSpec {
  /** Names its entries; the entries of one name are pruned together. */
  name: string;
  /** The build; part of the key, with esbuild's version. */
  options: CachedBuildOptions;
  /** Files that shape the output without being bundled (package.json, the lock file); a missing one counts as an input too. */
  extraInputs: readonly string[];
  /** Files copied into the output as they are (`to` relative to the output folder); inputs too. */
  copies?: readonly { from: string; to: string }[];
  /**
   * A step run on esbuild's output before the entry is kept (a V8 snapshot built from the bundle, say): `id`
   * names what it does and what it depends on besides the output (Node's version), and is part of the key.
   */
  afterBuild?: { id: string; run(outdir: string): void };
}

/** Where the entries live. */
export interface BundleCache {
  /** The folder input paths are relative to, and esbuild's working directory. */
  root: string;
  /**
   * The entries' folder. Give it the depth below `root` of the folders runs
   * link into: linked source maps name their sources by relative paths.
   */
  dir: string;
  /** Entries of one name kept, most recently used first. */
  keep: number;
}

/** What placing a bundle did. */
export interface BundleOutcome {
  /** True when a previous build's entry was linked, false when esbuild ran. */
  reused: boolean;
  /** The entry's folder name, or undefined for a build not kept (an input changed while it ran). */
  entry: string | undefined;
}

/** An input as recorded, or null for an extra input that did not exist. */
type Stamp = { size: number; mtimeMs: number; sha256: string } | null;

interface Manifest {
  key: string;
  inputs: Record<string, Stamp>;
}

const MANIFEST = '.inputs.json';
const BUILDING = '.build-';
const TRASH = '.trash-';
/** Bump when the manifest's meaning changes, so old entries stop matching. */
const FORMAT = 1;
/** HFS+ stamps whole seconds, FAT two: an input stamped within this of the build's start may have changed during it. */
const STAMP_GRANULARITY_MS = 2_000;
/** A `.build-` or `.trash-` folder this old was left by a run that died; nothing uses it. */
const ABANDONED_MS = 60 * 60 * 1000;

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hasCode = (error: unknown, ...codes: string[]) =>
  error instanceof Error && 'code' in error && typeof error.code === 'string' && codes.includes(error.code);

function stampOf(root: string, path: string): Stamp {
  try {
    const file = join(root, path);
    const { size, mtimeMs } = statSync(file);
    return { size, mtimeMs, sha256: sha256(readFileSync(file)) };
  } catch (error) {
    if (hasCode(error, 'ENOENT', 'ENOTDIR')) return null;
    throw error;
  }
}

/** Whether an input is as recorded; reads the file only when its size matches but its mtime does not. */
function unchanged(root: string, path: string, recorded: Stamp): boolean {
  let now: { size: number; mtimeMs: number };
  try {
    now = statSync(join(root, path));
  } catch (error) {
    if (hasCode(error, 'ENOENT', 'ENOTDIR')) return recorded === null;
    throw error;
  }
  if (recorded === null || now.size !== recorded.size) return false;
  return now.mtimeMs === recorded.mtimeMs || stampOf(root, path)?.sha256 === recorded.sha256;
}

function readManifest(entryDir: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(join(entryDir, MANIFEST), 'utf8')) as Manifest;
  } catch {
    return undefined; // pruned meanwhile
  }
}

/** The entries of one name, most recently used first. */
function entriesOf(cache: BundleCache, name: string): string[] {
  const dated = readdirSync(cache.dir)
    .filter((entry) => entry.startsWith(`${name}-`))
    .flatMap((entry) => {
      try {
        return [{ entry, used: statSync(join(cache.dir, entry)).mtimeMs }];
      } catch {
        return []; // pruned meanwhile
      }
    });
  return dated.sort((a, b) => b.used - a.used).map(({ entry }) => entry);
}

const keyOf = (spec: BundleSpec) =>
  sha256(JSON.stringify({
    format: FORMAT, esbuild: version, name: spec.name, options: spec.options, extraInputs: spec.extraInputs, copies: spec.copies ?? [],
    afterBuild: spec.afterBuild?.id ?? null,
  }));

function findEntry(spec: BundleSpec, cache: BundleCache, key: string): string | undefined {
  return entriesOf(cache, spec.name).find((entry) => {
    const manifest = readManifest(join(cache.dir, entry));
    return manifest?.key === key && Object.entries(manifest.inputs).every(([path, stamp]) => unchanged(cache.root, path, stamp));
  });
}

/** Links (or, across devices, copies) a tree of files; the manifest stays behind. */
function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const item of readdirSync(from, { withFileTypes: true })) {
    if (item.name === MANIFEST) continue;
    const source = join(from, item.name);
    const target = join(to, item.name);
    if (item.isDirectory()) {
      linkTree(source, target);
      continue;
    }
    try {
      linkSync(source, target);
    } catch (error) {
      if (!hasCode(error, 'EXDEV', 'EPERM')) throw error;
      copyFileSync(source, target);
    }
  }
}

/** Gives `to` the files of `from`, all at once: linked beside it, then renamed. A `to` already there is kept. */
function place(from: string, to: string): void {
  const part = `${to}.part-${randomUUID()}`;
  mkdirSync(dirname(to), { recursive: true });
  try {
    linkTree(from, part);
    renameSync(part, to);
  } catch (error) {
    rmSync(part, { recursive: true, force: true });
    if (!hasCode(error, 'EEXIST', 'ENOTEMPTY')) throw error;
  }
}

/** Read-only files: the links a run gets are the entry's own files, so a write through one would change the entry. */
function freeze(dir: string): void {
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, item.name);
    if (item.isDirectory()) freeze(path);
    else chmodSync(path, statSync(path).mode & 0o555);
  }
}

/** Removes a folder others may be reading from: renamed out of sight first, so nobody finds it half removed. */
function discard(cache: BundleCache, entry: string): void {
  const trash = join(cache.dir, `${TRASH}${randomUUID()}`);
  try {
    renameSync(join(cache.dir, entry), trash);
  } catch {
    return; // another run discarded it
  }
  rmSync(trash, { recursive: true, force: true });
}

function prune(cache: BundleCache, name: string): void {
  for (const entry of entriesOf(cache, name).slice(cache.keep)) discard(cache, entry);
  const now = Date.now();
  for (const left of readdirSync(cache.dir).filter((entry) => entry.startsWith(BUILDING) || entry.startsWith(TRASH))) {
    try {
      if (now - statSync(join(cache.dir, left)).mtimeMs > ABANDONED_MS) rmSync(join(cache.dir, left), { recursive: true, force: true });
    } catch {
      // removed meanwhile
    }
  }
}

interface Built {
  dir: string;
  manifest: Manifest;
  /** False when an input may have changed while esbuild read it. */
  keepable: boolean;
}

async function buildOnce(spec: BundleSpec, cache: BundleCache, key: string): Promise<Built> {
  const dir = join(cache.dir, `${BUILDING}${spec.name}-${randomUUID()}`);
  const started = Date.now();
  try {
    const result = await build({ ...spec.options, outdir: dir, absWorkingDir: cache.root, write: true, metafile: true });
    for (const { from, to } of spec.copies ?? []) copyFileSync(join(cache.root, from), join(dir, to));
    spec.afterBuild?.run(dir);
    const paths = new Set([...Object.keys(result.metafile.inputs), ...spec.extraInputs, ...(spec.copies ?? []).map(({ from }) => from)]);
    const inputs = Object.fromEntries([...paths].sort().map((path) => [path, stampOf(cache.root, path)]));
    const keepable = Object.values(inputs).every((stamp) => stamp === null || stamp.mtimeMs < started - STAMP_GRANULARITY_MS);
    const manifest = { key, inputs };
    writeFileSync(join(dir, MANIFEST), JSON.stringify(manifest));
    freeze(dir);
    return { dir, manifest, keepable };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Puts the output of `spec` at `to` (a folder that must not exist yet, or
 * is kept as it is): linked from a cache entry whose inputs are unchanged,
 * or built by esbuild and kept as a new entry. Rejects with esbuild's errors
 * when the build fails. The caller stops esbuild's service when done.
 */
export async function placeBundle(spec: BundleSpec, cache: BundleCache, to: string): Promise<BundleOutcome> {
  mkdirSync(cache.dir, { recursive: true });
  const key = keyOf(spec);
  const found = findEntry(spec, cache, key);
  if (found !== undefined) {
    const entryDir = join(cache.dir, found);
    try {
      const now = new Date();
      utimesSync(entryDir, now, now); // most recently used: pruned last
      place(entryDir, to);
      prune(cache, spec.name);
      return { reused: true, entry: found };
    } catch (error) {
      // A run with other inputs pruned it between the lookup and the links: build instead.
      if (!hasCode(error, 'ENOENT')) throw error;
    }
  }
  const built = await buildOnce(spec, cache, key);
  if (!built.keepable) {
    place(built.dir, to);
    rmSync(built.dir, { recursive: true, force: true });
    return { reused: false, entry: undefined };
  }
  const digest = sha256(JSON.stringify([key, Object.entries(built.manifest.inputs).map(([path, stamp]) => [path, stamp?.sha256 ?? null])]));
  const entry = `${spec.name}-${digest.slice(0, 24)}`;
  try {
    renameSync(built.dir, join(cache.dir, entry));
  } catch (error) {
    // Another run built the same inputs first; its entry is the same bundle.
    rmSync(built.dir, { recursive: true, force: true });
    if (!hasCode(error, 'EEXIST', 'ENOTEMPTY')) throw error;
  }
  place(join(cache.dir, entry), to);
  prune(cache, spec.name);
  return { reused: false, entry };
}
