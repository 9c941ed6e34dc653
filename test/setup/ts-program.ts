/**
 * One way to build a TypeScript program of this repository, for tests and
 * scripts that read or type-check the sources (the API reference, the README
 * examples, the type tests). Source files parsed from disk are kept for the
 * life of the process: with `isolate: false` every test file of a worker
 * shares this module, and parsing src/ and the lib .d.ts files again is most
 * of what a second program costs.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The repository's root directory (where package.json and tsconfig.json are). */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The compiler options of the repository's tsconfig.json, with nothing emitted. */
export function projectCompilerOptions(repoRoot: string = REPO_ROOT): ts.CompilerOptions {
  const configPath = join(repoRoot, 'tsconfig.json');
  const config = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, repoRoot);
  return { ...config.options, noEmit: true };
}

/** Files parsed from disk, keyed by language version, module format and path: they do not change while tests run. */
const parsedFromDisk = new Map<string, ts.SourceFile | undefined>();

/** What a program is built from: its root files, options, and files that exist only in memory (path to text). */
export interface ProgramSpec {
  rootNames: readonly string[];
  options?: ts.CompilerOptions;
  virtualFiles?: ReadonlyMap<string, string>;
}

/** A program over `spec.rootNames` (and the virtual files), sharing parsed disk files with every other one built here. */
export function projectProgram(spec: ProgramSpec): ts.Program {
  const options = spec.options ?? projectCompilerOptions();
  const virtual = spec.virtualFiles ?? new Map<string, string>();
  const host = ts.createCompilerHost(options);
  const fromDisk = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) => {
    const text = virtual.get(name);
    if (text !== undefined) return ts.createSourceFile(name, text, language);
    const format = typeof language === 'object' ? `${language.languageVersion}/${language.impliedNodeFormat}` : language;
    const key = `${format}:${name}`;
    if (!parsedFromDisk.has(key)) parsedFromDisk.set(key, fromDisk(name, language, ...rest));
    return parsedFromDisk.get(key);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => virtual.has(name) || fileExists(name);
  return ts.createProgram([...spec.rootNames, ...virtual.keys()], options, host);
}

/**
 * The syntactic and semantic diagnostics of one file of `program`: what type-checking that file finds, including
 * errors that types it uses from other files carry into it, without checking those other files themselves (the
 * dist build and `npx tsc --noEmit` check src/).
 */
export function fileDiagnostics(program: ts.Program, fileName: string): ts.Diagnostic[] {
  const source = program.getSourceFile(fileName);
  if (source === undefined) throw new Error(`${fileName} is not a file of the program`);
  return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
}

/** A diagnostic as `file:line: message`, the line 1-based (0 when it has no place in a file). */
export function diagnosticLine(diagnostic: ts.Diagnostic): string {
  const { file, start } = diagnostic;
  const line = file && start !== undefined ? file.getLineAndCharacterOfPosition(start).line + 1 : 0;
  return `${file?.fileName ?? '?'}:${line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
}
