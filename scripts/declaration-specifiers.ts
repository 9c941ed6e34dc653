/**
 * A declaration transformer for the build: relative module specifiers that
 * name a TypeScript source (`./x.ts`, `../y.mts`) are rewritten to the file
 * the build emits beside the declaration (`./x.js`, `../y.mjs`), in import and
 * export declarations and in `import("…")` types. Anything else is left as it is.
 */
import ts from 'typescript';

const EMITTED_EXTENSION: ReadonlyArray<readonly [source: string, emitted: string]> = [
  ['.mts', '.mjs'],
  ['.cts', '.cjs'],
  ['.ts', '.js'],
];

/** The specifier a declaration should carry for `specifier`, or undefined when it stays as written. */
export function emittedSpecifier(specifier: string): string | undefined {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  if (/\.d\.[mc]?ts$/.test(specifier)) return undefined;
  for (const [source, emitted] of EMITTED_EXTENSION) {
    if (specifier.endsWith(source)) return specifier.slice(0, -source.length) + emitted;
  }
  return undefined;
}

export const rewriteDeclarationSpecifiers: ts.TransformerFactory<ts.SourceFile | ts.Bundle> = (context) => {
  const { factory } = context;
  const literal = (node: ts.Node | undefined): ts.StringLiteral | undefined => {
    if (!node || !ts.isStringLiteral(node)) return undefined;
    const rewritten = emittedSpecifier(node.text);
    return rewritten === undefined ? undefined : factory.createStringLiteral(rewritten);
  };

  const visit = (node: ts.Node): ts.Node => {
    if (ts.isImportDeclaration(node)) {
      const specifier = literal(node.moduleSpecifier);
      if (specifier) return factory.updateImportDeclaration(node, node.modifiers, node.importClause, specifier, node.attributes);
    } else if (ts.isExportDeclaration(node)) {
      const specifier = literal(node.moduleSpecifier);
      if (specifier) return factory.updateExportDeclaration(node, node.modifiers, node.isTypeOnly, node.exportClause, specifier, node.attributes);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const specifier = literal(node.argument.literal);
      if (specifier) {
        return factory.updateImportTypeNode(
          node,
          factory.updateLiteralTypeNode(node.argument, specifier),
          node.attributes,
          node.qualifier ? (ts.visitNode(node.qualifier, visit) as ts.EntityName) : undefined,
          node.typeArguments?.map((argument) => ts.visitNode(argument, visit) as ts.TypeNode),
          node.isTypeOf,
        );
      }
    }
    return ts.visitEachChild(node, visit, context);
  };

  const visitSourceFile = (file: ts.SourceFile): ts.SourceFile => ts.visitEachChild(file, visit, context);
  return (node) => (ts.isBundle(node) ? factory.updateBundle(node, node.sourceFiles.map(visitSourceFile)) : visitSourceFile(node));
};
