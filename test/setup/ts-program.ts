/**
 * One way to build a TypeScript program of this repository, for tests and
 * scripts that read or type-check the sources (the API reference, the README
 * examples, the type tests). Source files parsed from disk are kept for the
 * life of the process: with `isolate: false` every test file of a worker
 * shares this module, and parsing src/ and the lib .d.ts files again is most
 * of what a second program costs.
 *
 * A check that runs on every `npm test` keeps its diagnostics between runs in
 * a .tsbuildinfo, as `tsc --incremental` does (`checkIncrementally`): a file
 * is checked again only when its text, or the declarations of a file it
 * depends on, changed since.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The repository's root directory (where package.json and tsconfig.json are). */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Where type-check caches are kept between runs: git-ignored, per clone, beside vitest's own cache. */
export const TS_CACHE_DIR = join(REPO_ROOT, 'node_modules', '.cache', 'mcp-actors');

/** The compiler options of the repository's tsconfig.json, with nothing emitted. */
export function projectCompilerOptions(repoRoot: string = REPO_ROOT): ts.CompilerOptions {
  const configPath = join(repoRoot, 'tsconfig.json');
  const config = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, repoRoot);
  return { ...config.options, noEmit: true };
}

/**
 * Files parsed from disk, keyed by language version, module format, how much JSDoc was parsed, path, size and
 * modification time: a file a test rewrites is parsed again.
 */
const parsedFromDisk = new Map<string, ts.SourceFile | undefined>();

/** What a program is built from: its root files, options, and files that exist only in memory (path to text). */
export interface ProgramSpec {
  rootNames: readonly string[];
  options?: ts.CompilerOptions;
  virtualFiles?: ReadonlyMap<string, string>;
}

/**
 * A compiler host that reads the virtual files from memory and shares parsed disk files with every other host made
 * here. It is TypeScript's incremental host, so every source file carries a hash of its text as its version: what a
 * builder program compares with a .tsbuildinfo (the hash costs ~10 ms for the 8 MB of a type-test program).
 */
function projectHost(options: ts.CompilerOptions, virtual: ReadonlyMap<string, string>, jsDocParsingMode: ts.JSDocParsingMode): ts.CompilerHost {
  const host = ts.createIncrementalCompilerHost(options);
  host.jsDocParsingMode = jsDocParsingMode;
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => virtual.get(name) ?? readFile(name);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => virtual.has(name) || fileExists(name);
  const parse = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) => {
    if (virtual.has(name)) return parse(name, language, ...rest);
    const format = typeof language === 'object' ? `${language.languageVersion}/${language.impliedNodeFormat}/${language.jsDocParsingMode}` : language;
    let stamp = 'absent';
    try {
      const { size, mtimeMs } = statSync(name);
      stamp = `${size}@${mtimeMs}`;
    } catch {
      // parse() reports the missing file
    }
    const key = `${format}:${stamp}:${name}`;
    if (!parsedFromDisk.has(key)) parsedFromDisk.set(key, parse(name, language, ...rest));
    return parsedFromDisk.get(key);
  };
  return host;
}

/**
 * A program over `spec.rootNames` (and the virtual files), sharing parsed disk files with every other one built here.
 * Every JSDoc comment is parsed, for readers of TSDoc such as the API reference.
 */
export function projectProgram(spec: ProgramSpec): ts.Program {
  const options = spec.options ?? projectCompilerOptions();
  const virtual = spec.virtualFiles ?? new Map<string, string>();
  return ts.createProgram([...spec.rootNames, ...virtual.keys()], options, projectHost(options, virtual, ts.JSDocParsingMode.ParseAll));
}

/**
 * The syntactic and semantic diagnostics of one file of `program`: what type-checking that file finds, including
 * errors that types it uses from other files carry into it, without checking those other files themselves (the
 * dist build and `npx tsc --noEmit` check src/).
 */
export function fileDiagnostics(program: ts.Program | ts.BuilderProgram, fileName: string): ts.Diagnostic[] {
  const source = program.getSourceFile(fileName);
  if (source === undefined) throw new Error(`${fileName} is not a file of the program`);
  return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
}

/** The diagnostics of files of a program, however they were found. */
export type DiagnosticsOf = (fileName: string) => readonly ts.Diagnostic[];

/** A program to check some of its files, and the .tsbuildinfo that keeps their diagnostics between runs. */
export interface IncrementalCheckSpec extends ProgramSpec {
  /** The files whose diagnostics are wanted: the others are type-checked only as far as these use them. */
  checkedFiles: readonly string[];
  /** The cache: written whole under a temporary name and renamed, so a run beside this one reads old or new. */
  buildInfoFile: string;
  /** Given the compiler host before the program is built, to watch what it reads and looks for (ts-check-record.ts). */
  observeHost?: (host: ts.CompilerHost) => void;
}

/** The outcome of `checkIncrementally`. */
export interface IncrementalCheck {
  program: ts.Program;
  /** The syntactic and semantic diagnostics of one of the checked files, as `fileDiagnostics` gives them. */
  diagnosticsOf: DiagnosticsOf;
  /**
   * The checked files that changed since the cache was written, or depend on declarations that did (all of them
   * without a readable cache): the builder dropped their cached diagnostics and checked them again. The others'
   * diagnostics come from the cache (a file the run that wrote it did not check is checked now, and not listed).
   */
  changedSinceCache: ReadonlySet<string>;
}

/**
 * The diagnostics of `spec.checkedFiles`, from the cache where their text and what they depend on are unchanged,
 * as `tsc --incremental` decides it (versions are hashes of the files' text; a file whose dependencies' declaration
 * signatures changed is checked again; so is everything when the compiler options or TypeScript changed). Writes
 * the cache back when anything in it changed.
 */
export function checkIncrementally(spec: IncrementalCheckSpec): IncrementalCheck {
  const options: ts.CompilerOptions = { ...(spec.options ?? projectCompilerOptions()), noEmit: true, incremental: true, tsBuildInfoFile: spec.buildInfoFile };
  const virtual = spec.virtualFiles ?? new Map<string, string>();
  // Only the JSDoc that can change a diagnostic (@see and @link, which use imports; all of it in JS files), as tsc
  // parses it: a fifth less parsing here, where the .d.ts files of lib, Node and Redis are mostly documentation.
  const host = projectHost(options, virtual, ts.JSDocParsingMode.ParseForTypeErrors);
  spec.observeHost?.(host);
  const program = ts.createProgram([...spec.rootNames, ...virtual.keys()], options, host);
  try {
    return checkOver(program, ts.readBuilderProgram(options, host), host, spec.checkedFiles);
  } catch {
    // A cache that is valid JSON of the wrong shape fails somewhere inside TypeScript: it counts as empty.
    return checkOver(program, undefined, host, spec.checkedFiles);
  }
}

/** `checkIncrementally` of one program, over what the cache held (`undefined`: nothing). */
function checkOver(program: ts.Program, cached: ts.EmitAndSemanticDiagnosticsBuilderProgram | undefined, host: ts.CompilerHost, checkedFiles: readonly string[]): IncrementalCheck {
  const builder = ts.createEmitAndSemanticDiagnosticsBuilderProgram(program, host, cached);
  const checked = new Set(checkedFiles.map((name) => {
    const source = program.getSourceFile(name);
    if (source === undefined) throw new Error(`${name} is not a file of the program`);
    return source;
  }));
  const passedOver = (file: ts.SourceFile) => !checked.has(file);
  // The affected files, one at a time: each changed file, and the files its changed declarations reach, lose their
  // cached diagnostics, and those of `checked` are checked again. The others are passed over (src/ is the build's to
  // check), which still drops whatever they had cached.
  const changedSinceCache = new Set<string>();
  for (;;) {
    const next = builder.getSemanticDiagnosticsOfNextAffectedFile(undefined, passedOver);
    if (next === undefined) break;
    if ('fileName' in next.affected) changedSinceCache.add(next.affected.fileName);
  }
  const diagnostics = new Map([...checked].map((source) => [source.fileName, fileDiagnostics(builder, source.fileName)]));
  // With noEmit, emitting writes the .tsbuildinfo only, and only when something in it changed.
  builder.emit(undefined, writeAtomically);
  return {
    program,
    diagnosticsOf: (name) => {
      const found = diagnostics.get(name);
      if (found === undefined) throw new Error(`${name} is not one of the checked files`);
      return found;
    },
    changedSinceCache,
  };
}

/**
 * Writes a cache file: `text` to a temporary file beside `fileName`, renamed over it, so a run beside this one reads
 * the old file or the new, never half of one. A cache that cannot be written costs the next run its speed, not its
 * result: failures are left silent.
 */
export function writeAtomically(fileName: string, text: string): void {
  const temporary = `${fileName}.${process.pid}.${randomUUID()}.tmp`;
  try {
    mkdirSync(dirname(fileName), { recursive: true });
    writeFileSync(temporary, text);
    renameSync(temporary, fileName);
  } catch {
    rmSync(temporary, { force: true });
  }
}

/** A diagnostic as `file:line: message`, the line 1-based (0 when it has no place in a file). */
export function diagnosticLine(diagnostic: ts.Diagnostic): string {
  const { file, start } = diagnostic;
  const line = file && start !== undefined ? file.getLineAndCharacterOfPosition(start).line + 1 : 0;
  return `${file?.fileName ?? '?'}:${line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
}
