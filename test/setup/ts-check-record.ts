/**
 * A type check that is not run again while nothing it read or looked for has changed: the outcome of
 * `checkIncrementally` (ts-program.ts), written down with every file TypeScript read and every question it asked the
 * file system (does this file exist, this folder, what is in it, where does this link lead). A later run asks the
 * same questions; when every answer is the same and every file has the same text, it replays the recorded
 * diagnostics without building a program. Building the program (parsing and binding ~8 MB of lib, Node, Redis and
 * src/ declarations) is most of what a check with an up-to-date .tsbuildinfo still costs: ~4 s CPU per `npm test`
 * for the type tests. Any other answer, a file added where resolution looked, one removed, one changed, another
 * TypeScript or other options, and the check runs as before and is recorded again.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { checkIncrementally, type DiagnosticsOf, type IncrementalCheckSpec, projectCompilerOptions, writeAtomically } from './ts-program.ts';

/** A check whose outcome is recorded in `recordFile` and replayed while its inputs are unchanged. */
export interface RecordedCheckSpec extends IncrementalCheckSpec {
  /** The record: written whole under a temporary name and renamed, as the .tsbuildinfo is. */
  recordFile: string;
}

/** The outcome of `checkUnlessUnchanged`. */
export interface RecordedCheck {
  /** The diagnostics of one of the checked files, as `fileDiagnostics` (ts-program.ts) gives them. */
  diagnosticsOf: DiagnosticsOf;
  /** The diagnostics of no one file: the compiler options' and the global ones (a missing lib, say). */
  programDiagnostics: readonly ts.Diagnostic[];
  /** True when the outcome is the record's: no program was built. */
  replayed: boolean;
}

/** A diagnostic as JSON: the place by file name, and the message chain as TypeScript gives it. */
interface StoredDiagnostic {
  fileName: string | null;
  start: number | null;
  length: number | null;
  code: number;
  category: ts.DiagnosticCategory;
  messageText: string | ts.DiagnosticMessageChain;
  reportsUnnecessary: boolean;
}

/** What TypeScript read and asked, with the answers it got. */
interface Observed {
  /** Text hash of each file read (null: it was not there). */
  files: Record<string, string | null>;
  fileExists: Record<string, boolean>;
  directoryExists: Record<string, boolean>;
  getDirectories: Record<string, string[]>;
  realpath: Record<string, string>;
}

/** The record file: its key, what the check observed, and its outcome. */
interface CheckRecord {
  key: string;
  observed: Observed;
  diagnostics: Record<string, StoredDiagnostic[]>;
  programDiagnostics: StoredDiagnostic[];
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A file's text as TypeScript reads it (a UTF-8 byte order mark dropped), or null when it cannot be read. */
function textOf(fileName: string): string | null {
  try {
    return readFileSync(fileName, 'utf8').replace(/^\uFEFF/, '');
  } catch {
    return null;
  }
}

const hashOf = (fileName: string) => {
  const text = textOf(fileName);
  return text === null ? null : sha256(text);
};

/** What the check depends on besides the file system: TypeScript, the options, the roots and the virtual files. */
function keyOf(spec: RecordedCheckSpec, options: ts.CompilerOptions): string {
  const virtual = [...(spec.virtualFiles ?? new Map<string, string>())].map(([name, text]) => [name, sha256(text)]);
  return sha256(JSON.stringify({ typescript: ts.version, options, rootNames: spec.rootNames, checkedFiles: spec.checkedFiles, virtual }));
}

/** Whether the file system still answers every recorded question as it did. */
function unchanged(observed: Observed): boolean {
  const same = <T>(answers: Record<string, T>, ask: (path: string) => T) =>
    Object.entries(answers).every(([path, answer]) => JSON.stringify(ask(path)) === JSON.stringify(answer));
  return (
    same(observed.fileExists, (path) => ts.sys.fileExists(path)) &&
    same(observed.directoryExists, (path) => ts.sys.directoryExists(path)) &&
    same(observed.getDirectories, (path) => ts.sys.getDirectories(path)) &&
    same(observed.realpath, (path) => ts.sys.realpath?.(path) ?? path) &&
    same(observed.files, hashOf)
  );
}

function readRecord(recordFile: string, key: string): CheckRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(recordFile, 'utf8')) as CheckRecord;
    return record.key === key && unchanged(record.observed) ? record : undefined;
  } catch {
    return undefined; // none yet, unreadable, or of another shape: the check runs
  }
}

const store = (diagnostic: ts.Diagnostic): StoredDiagnostic => ({
  fileName: diagnostic.file?.fileName ?? null,
  start: diagnostic.start ?? null,
  length: diagnostic.length ?? null,
  code: diagnostic.code,
  category: diagnostic.category,
  messageText: diagnostic.messageText,
  reportsUnnecessary: diagnostic.reportsUnnecessary !== undefined,
});

/** The recorded diagnostics as TypeScript's, each file they name parsed again (only those: a few small files). */
function replay(record: CheckRecord, virtual: ReadonlyMap<string, string>): RecordedCheck {
  const files = new Map<string, ts.SourceFile>();
  const fileOf = (fileName: string) => {
    let file = files.get(fileName);
    if (file === undefined) {
      file = ts.createSourceFile(fileName, virtual.get(fileName) ?? textOf(fileName) ?? '', ts.ScriptTarget.Latest);
      files.set(fileName, file);
    }
    return file;
  };
  const restore = (stored: StoredDiagnostic): ts.Diagnostic => ({
    file: stored.fileName === null ? undefined : fileOf(stored.fileName),
    start: stored.start ?? undefined,
    length: stored.length ?? undefined,
    code: stored.code,
    category: stored.category,
    messageText: stored.messageText,
    ...(stored.reportsUnnecessary ? { reportsUnnecessary: {} } : {}),
  });
  const diagnostics = new Map(Object.entries(record.diagnostics).map(([name, stored]) => [name, stored.map(restore)]));
  return {
    diagnosticsOf: (name) => {
      const found = diagnostics.get(name);
      if (found === undefined) throw new Error(`${name} is not one of the checked files`);
      return found;
    },
    programDiagnostics: record.programDiagnostics.map(restore),
    replayed: true,
  };
}

/**
 * The diagnostics of `spec.checkedFiles` and of the program as a whole: replayed from `spec.recordFile` when
 * nothing the recorded check read or looked for has changed, or else checked (`checkIncrementally`) and recorded.
 */
export function checkUnlessUnchanged(spec: RecordedCheckSpec): RecordedCheck {
  const options = spec.options ?? projectCompilerOptions();
  const virtual = spec.virtualFiles ?? new Map<string, string>();
  const key = keyOf(spec, options);
  const recorded = readRecord(spec.recordFile, key);
  if (recorded !== undefined) return replay(recorded, virtual);

  const observed: Observed = { files: {}, fileExists: {}, directoryExists: {}, getDirectories: {}, realpath: {} };
  const check = checkIncrementally({
    ...spec,
    options,
    observeHost: (host) => {
      // The .tsbuildinfo is the incremental check's own cache, rewritten by it: not an input of the outcome.
      const onDisk = (path: string) => !virtual.has(path) && path !== spec.buildInfoFile;
      const watch = <K extends 'fileExists' | 'directoryExists' | 'getDirectories' | 'realpath'>(method: K) => {
        const ask = host[method]?.bind(host) as ((path: string) => unknown) | undefined;
        if (ask === undefined) return;
        (host[method] as (path: string) => unknown) = (path: string) => {
          const answer = ask(path);
          if (onDisk(path)) (observed[method] as Record<string, unknown>)[path] = answer;
          return answer;
        };
      };
      watch('fileExists');
      watch('directoryExists');
      watch('getDirectories');
      watch('realpath');
      const read = host.readFile.bind(host);
      host.readFile = (path) => {
        const text = read(path);
        if (onDisk(path)) observed.files[path] = text === undefined ? null : sha256(text);
        return text;
      };
    },
  });
  // Source files parsed by an earlier program of this worker were not read again: their text is what was checked.
  for (const source of check.program.getSourceFiles()) {
    if (!virtual.has(source.fileName)) observed.files[source.fileName] = sha256(source.text);
  }
  const diagnostics = Object.fromEntries(spec.checkedFiles.map((name) => [name, check.diagnosticsOf(name).map(store)]));
  const programDiagnostics = [...check.program.getOptionsDiagnostics(), ...check.program.getGlobalDiagnostics()];
  // A file that changed while it was checked no longer has the text the diagnostics are of: no record then.
  if (unchanged(observed)) {
    writeAtomically(spec.recordFile, JSON.stringify({ key, observed, diagnostics, programDiagnostics: programDiagnostics.map(store) } satisfies CheckRecord));
  }
  return { diagnosticsOf: check.diagnosticsOf, programDiagnostics, replayed: false };
}
