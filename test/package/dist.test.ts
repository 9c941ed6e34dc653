/**
 * The compiled package as the global setup built it (dist/): what package.json
 * points at exists, every relative import in the JavaScript and in the
 * declarations names an emitted `.js` file that is there, and the runtime
 * import graph of each entry point needs nothing but the declared
 * dependencies (the optional peer redis only behind mcp-actors/redis's
 * dynamic import). The consumer test (test/consumer/run.ts) installs the
 * packed tarball for real; this is the quick check beside the suite.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIST = join(ROOT, 'dist');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, string | Record<string, string>>;
  bin: Record<string, string>;
  types: string;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};

const emitted = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return emitted(path);
    return /\.(js|d\.ts)$/.test(entry.name) ? [path] : [];
  });

interface Specifier {
  text: string;
  dynamic: boolean;
}

const isCreateRequireCall = (node: ts.Node): boolean =>
  ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'createRequire';

/** What specifiersOf found per file: the entry points' import graphs overlap, and dist/ does not change during the run. */
const specifiersByFile = new Map<string, Specifier[]>();

/**
 * The module specifiers a file names: import/export declarations, `import("…")` types and calls, and what it
 * requires through `createRequire` (a module loaded on first use, synchronously: still a static need).
 */
function specifiersOf(file: string): Specifier[] {
  let found = specifiersByFile.get(file);
  if (found === undefined) specifiersByFile.set(file, (found = parseSpecifiers(file)));
  return found;
}

function parseSpecifiers(file: string): Specifier[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, false);
  const found: Specifier[] = [];
  const requireNames = new Set<string>();
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ text: node.moduleSpecifier.text, dynamic: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ text: node.argument.literal.text, dynamic: false });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      found.push({ text: argument && ts.isStringLiteral(argument) ? argument.text : '<computed>', dynamic: true });
    } else if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && isCreateRequireCall(node.initializer)) {
      requireNames.add(node.name.text);
    } else if (
      ts.isCallExpression(node) &&
      (isCreateRequireCall(node.expression) || (ts.isIdentifier(node.expression) && requireNames.has(node.expression.text)))
    ) {
      const [argument] = node.arguments;
      found.push({ text: argument && ts.isStringLiteral(argument) ? argument.text : '<computed>', dynamic: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const isRelative = (specifier: string) => specifier.startsWith('./') || specifier.startsWith('../');
const packageName = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
const builtins = new Set(builtinModules);
const isBuiltin = (specifier: string) => specifier.startsWith('node:') || builtins.has(specifier);

/**
 * Every package a JavaScript entry reaches through imports, and the packages it imports dynamically on the
 * way. Our own modules imported dynamically (loaded on first use, to start faster) are followed like static ones.
 */
function runtimeGraph(entry: string): { packages: Set<string>; dynamic: Map<string, string> } {
  const packages = new Set<string>();
  const dynamic = new Map<string, string>();
  const seen = new Set<string>([entry]);
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const { text, dynamic: isDynamic } of specifiersOf(file)) {
      if (isDynamic && !isRelative(text)) dynamic.set(text, relative(DIST, file));
      else if (isRelative(text)) {
        const target = resolve(dirname(file), text);
        if (!seen.has(target)) {
          seen.add(target);
          queue.push(target);
        }
      } else if (!isBuiltin(text)) packages.add(packageName(text));
    }
  }
  return { packages, dynamic };
}

describe('dist/', () => {
  it('holds every file package.json points at: exports (types and JavaScript), types, bin', () => {
    const targets = [
      ...Object.values(pkg.exports).flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target))),
      pkg.types,
      ...Object.values(pkg.bin),
    ];
    expect(targets.filter((target) => !existsSync(join(ROOT, target)))).toEqual([]);
    for (const [entry, target] of Object.entries(pkg.exports)) {
      if (typeof target === 'string') continue;
      expect(Object.keys(target)[0], `${entry}: types first`).toBe('types');
    }
  });

  it('names only emitted .js files that exist in every relative import, JavaScript and declarations alike', () => {
    const files = emitted(DIST);
    expect(files.length).toBeGreaterThan(50);
    const broken = files.flatMap((file) =>
      specifiersOf(file)
        .filter(({ text }) => isRelative(text) && (!text.endsWith('.js') || !existsSync(resolve(dirname(file), text))))
        .map(({ text }) => `${relative(DIST, file)}: ${text}`),
    );
    expect(broken).toEqual([]);
  });

  // A dependency may be imported dynamically, loaded on first use (ajv, when the client first checks a server's
  // request); the optional peer redis only from mcp-actors/redis (below).
  const FIRST_USE: Record<string, string> = { ajv: 'src/client/server-request-types.js' };

  it('each entry point needs only the runtime dependencies and node builtins; what it imports dynamically is a dependency', () => {
    const allowed = new Set(Object.keys(pkg.dependencies));
    for (const entry of ['src/index.js', 'src/server/index.js', 'src/demo/demo-server.js']) {
      const { packages, dynamic } = runtimeGraph(join(DIST, entry));
      expect([...packages].filter((name) => !allowed.has(name)), entry).toEqual([]);
      expect(Object.fromEntries(dynamic), `${entry}: packages imported dynamically`).toEqual(entry === 'src/index.js' ? FIRST_USE : {});
    }
  });

  it('the CLI (its watch and --inspect page, loaded on first use, included) loads nothing beyond the dependencies', () => {
    const { packages, dynamic } = runtimeGraph(join(DIST, 'src/cli/main.js'));
    expect([...packages].filter((name) => !(name in pkg.dependencies))).toEqual([]);
    expect(Object.keys(pkg.peerDependencies)).toEqual(['redis']);
    expect(Object.fromEntries(dynamic)).toEqual(FIRST_USE);
  });

  it('mcp-actors/redis loads the optional peer redis only by dynamic import, and nothing else beyond the dependencies', () => {
    const { packages, dynamic } = runtimeGraph(join(DIST, 'src/redis/index.js'));
    expect([...packages].filter((name) => !(name in pkg.dependencies))).toEqual([]);
    expect(Object.fromEntries(dynamic)).toEqual({ redis: 'src/redis/connection.js' });
  });
});
