/**
 * What each entry point exports, resolved through re-exports to the
 * declarations, with the first paragraph of their TSDoc: the facts both the
 * README's API reference and the check that every export is documented are
 * made of. Reads syntax and symbols only, so the program it reads needs no
 * lib or node_modules types (see sourcesProgram in reference.ts).
 */
import { relative } from 'node:path';
import ts from 'typescript';
import type { EntryPoint } from './entry-points.ts';
import { aliasSignature, callSignature, shortType, valueSignature } from './signatures.ts';

/** How the reference groups an export. `error` is a class that extends `Error`. */
export type ApiKind = 'function' | 'class' | 'error' | 'type' | 'constant';

/** A public member of an exported class or interface. */
export interface ApiMember {
  name: string;
  /** What follows the name: `(a, b?): R` for a method, `: T` for a property. */
  signature: string;
  /** The first paragraph of its TSDoc, inherited from a base type when it has none of its own; empty when undocumented. */
  summary: string;
  /** `file:line` of its declaration, relative to the repository root. */
  at: string;
}

/** An exported name of one entry point. */
export interface ApiItem {
  name: string;
  kind: ApiKind;
  /** What follows the name, as for a member; for an error, its `code`. */
  signature: string;
  /** The first paragraph of its TSDoc (or of the re-export's own, for a renamed alias); empty when undocumented. */
  summary: string;
  deprecated: boolean;
  /** `file:line` of its declaration, relative to the repository root. */
  at: string;
  /** Public members of a class or an interface, in declaration order; empty for other kinds. */
  members: ApiMember[];
}

/** One entry point and everything it exports, sorted by name. */
export interface ApiEntry extends EntryPoint {
  items: ApiItem[];
}

function firstParagraph(text: string): string {
  return (text.trim().split(/\n\s*\n/)[0] ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * The first paragraph of the TSDoc nearest `declaration` (a stray comment
 * above it does not count), else of what it inherits: a class member without
 * its own comment takes its base member's.
 */
function documentation(declaration: ts.Node, symbol: ts.Symbol | undefined, checker: ts.TypeChecker): string {
  const nearest = ts.getJSDocCommentsAndTags(declaration).filter(ts.isJSDoc).at(-1);
  const own = nearest ? firstParagraph(ts.getTextOfJSDocComment(nearest.comment) ?? '') : '';
  return own !== '' || symbol === undefined ? own : firstParagraph(ts.displayPartsToString(symbol.getDocumentationComment(checker)));
}

/** The TSDoc of an `export { a as b }` declaration itself, which describes the alias rather than its target. */
function exportDeclarationDoc(alias: ts.Symbol): { summary: string; deprecated: boolean } | undefined {
  // Only a renaming re-export: a file's opening comment attaches to its first export declaration too.
  const specifier = alias.declarations?.find(ts.isExportSpecifier);
  if (!specifier?.propertyName) return undefined;
  const docs = ts.getJSDocCommentsAndTags(specifier.parent.parent).filter(ts.isJSDoc);
  if (docs.length === 0) return undefined;
  const deprecated = docs.some((doc) => doc.tags?.some((tag) => tag.tagName.text === 'deprecated'));
  const text = docs.map((doc) => [ts.getTextOfJSDocComment(doc.comment), ...(doc.tags ?? []).map((tag) => ts.getTextOfJSDocComment(tag.comment))].join(' ')).join('\n\n');
  return { summary: firstParagraph(text), deprecated };
}

function where(declaration: ts.Node, repoRoot: string): string {
  const file = declaration.getSourceFile();
  return `${relative(repoRoot, file.fileName)}:${file.getLineAndCharacterOfPosition(declaration.getStart()).line + 1}`;
}

function hasModifier(node: ts.Node, kind: ts.SyntaxKind): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === kind);
}

/**
 * Private, protected, `#private` and `_`-prefixed members are no API, nor is
 * a brand keyed by the package's own symbol (`[BRAND]`, unlike
 * `[Symbol.asyncDispose]`); an `override` restates its base's member.
 */
function isPublicMember(member: ts.Node): member is ts.NamedDeclaration & { name: ts.PropertyName } {
  const name = (member as ts.NamedDeclaration).name;
  if (name === undefined || ts.isPrivateIdentifier(name) || name.getText().startsWith('_')) return false;
  if (ts.isComputedPropertyName(name) && !name.expression.getText().startsWith('Symbol.')) return false;
  return ![ts.SyntaxKind.PrivateKeyword, ts.SyntaxKind.ProtectedKeyword, ts.SyntaxKind.OverrideKeyword].some((kind) => hasModifier(member, kind));
}

function memberSignature(member: ts.Node, checker: ts.TypeChecker): string {
  if (ts.isMethodDeclaration(member) || ts.isMethodSignature(member) || ts.isGetAccessorDeclaration(member)) {
    return ts.isGetAccessorDeclaration(member) ? `: ${shortType(member.type?.getText()) ?? '…'}` : callSignature(member);
  }
  const optional = (member as { questionToken?: ts.Node }).questionToken ? '?' : '';
  return `${optional}${valueSignature(member as ts.Declaration, checker)}`;
}

/** The members a reader calls or reads: declared members and constructor parameter properties. */
function declaredMembers(declaration: ts.ClassDeclaration | ts.InterfaceDeclaration): ts.Node[] {
  const members: ts.Node[] = [];
  for (const member of declaration.members) {
    if (ts.isConstructorDeclaration(member)) {
      members.push(...member.parameters.filter((parameter) => ts.isParameterPropertyDeclaration(parameter, member)));
    } else if (ts.isPropertyDeclaration(member) || ts.isMethodDeclaration(member) || ts.isGetAccessorDeclaration(member)) {
      members.push(member);
    } else if (ts.isPropertySignature(member) || ts.isMethodSignature(member)) {
      members.push(member);
    }
  }
  return members;
}

function membersOf(declaration: ts.ClassDeclaration | ts.InterfaceDeclaration, checker: ts.TypeChecker, repoRoot: string): ApiMember[] {
  const seen = new Set<string>();
  const members: ApiMember[] = [];
  for (const member of declaredMembers(declaration)) {
    if (!isPublicMember(member)) continue;
    const name = member.name.getText();
    // An overloaded method is one member; its first declaration is the one shown.
    if (seen.has(name)) continue;
    seen.add(name);
    const summary = documentation(member, checker.getSymbolAtLocation(member.name), checker);
    members.push({ name, signature: memberSignature(member, checker), summary, at: where(member, repoRoot) });
  }
  return members;
}

/** Whether a class's chain of `extends` ends at `Error`; read from the syntax, as the program has no lib files. */
function extendsError(declaration: ts.ClassDeclaration, checker: ts.TypeChecker): boolean {
  for (let current: ts.ClassLikeDeclaration | undefined = declaration; current; ) {
    const base = current.heritageClauses?.find((clause) => clause.token === ts.SyntaxKind.ExtendsKeyword)?.types[0]?.expression;
    if (base === undefined) return false;
    let symbol = checker.getSymbolAtLocation(base);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const next = symbol?.declarations?.find(ts.isClassLike);
    if (next === undefined) return base.getText() === 'Error';
    current = next;
  }
  return false;
}

function errorCode(declaration: ts.ClassDeclaration, checker: ts.TypeChecker): string {
  const code = checker.getTypeAtLocation(declaration).getProperty('code');
  if (!code) return '';
  const text = checker.typeToString(checker.getTypeOfSymbolAtLocation(code, declaration)).replace(/"/g, "'");
  return text === 'Code' || text === 'string' ? '' : text;
}

function describe(name: string, target: ts.Symbol, checker: ts.TypeChecker, repoRoot: string): Omit<ApiItem, 'summary' | 'deprecated'> {
  const declaration = target.declarations?.[0];
  if (!declaration) return { name, kind: 'constant', signature: '', at: '?', members: [] };
  const at = where(declaration, repoRoot);
  if (ts.isClassDeclaration(declaration)) {
    const error = extendsError(declaration, checker);
    const code = error ? errorCode(declaration, checker) : '';
    return { name, kind: error ? 'error' : 'class', signature: code, at, members: membersOf(declaration, checker, repoRoot) };
  }
  if (ts.isFunctionDeclaration(declaration)) {
    return { name, kind: 'function', signature: callSignature(declaration), at, members: [] };
  }
  if (ts.isInterfaceDeclaration(declaration)) {
    return { name, kind: 'type', signature: '', at, members: membersOf(declaration, checker, repoRoot) };
  }
  if (ts.isTypeAliasDeclaration(declaration)) return { name, kind: 'type', signature: aliasSignature(declaration), at, members: [] };
  if (ts.isVariableDeclaration(declaration) && declaration.initializer && ts.isArrowFunction(declaration.initializer)) {
    return { name, kind: 'function', signature: callSignature(declaration.initializer), at, members: [] };
  }
  return { name, kind: 'constant', signature: valueSignature(declaration, checker), at, members: [] };
}

function targetDocumentation(target: ts.Symbol, checker: ts.TypeChecker): string {
  const declaration = target.declarations?.[0];
  return declaration ? documentation(declaration, target, checker) : '';
}

/** Everything `entry` exports, resolved through re-exports, sorted by name. */
export function collectEntry(program: ts.Program, entry: EntryPoint, repoRoot: string): ApiEntry {
  const checker = program.getTypeChecker();
  const file = program.getSourceFiles().find((source) => relative(repoRoot, source.fileName) === entry.source);
  const moduleSymbol = file && checker.getSymbolAtLocation(file);
  if (!moduleSymbol) throw new Error(`${entry.source} (${entry.specifier}) is not in the program or exports nothing`);
  const items = checker.getExportsOfModule(moduleSymbol).map((exported): ApiItem => {
    const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const own = exportDeclarationDoc(exported);
    const deprecated = own?.deprecated ?? target.getJsDocTags(checker).some((tag) => tag.name === 'deprecated');
    return { ...describe(exported.name, target, checker, repoRoot), summary: own?.summary ?? targetDocumentation(target, checker), deprecated };
  });
  items.sort((a, b) => a.name.localeCompare(b.name, 'en'));
  return { ...entry, items };
}

/** Every export and public member without a TSDoc comment, as `file:line name` (each declaration once). */
export function undocumented(entries: readonly ApiEntry[]): string[] {
  const missing = new Set<string>();
  for (const { items } of entries) {
    for (const item of items) {
      if (item.summary === '') missing.add(`${item.at} ${item.name}`);
      for (const member of item.members) if (member.summary === '') missing.add(`${member.at} ${item.name}.${member.name}`);
    }
  }
  return [...missing].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}
