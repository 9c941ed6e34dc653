/**
 * Signatures in short, from the declarations as written: parameter names,
 * and types only where they fit in a few words. The editor's hover shows the
 * full types; the API reference is for finding the right name.
 */
import ts from 'typescript';

/** Types longer than this are left out (a parameter) or shown as `…` (a result). */
const SHORT_TYPE = 36;

/** `text` on one line, or undefined when it is too long to help at a glance. */
export function shortType(text: string | undefined, limit: number = SHORT_TYPE): string | undefined {
  if (text === undefined) return undefined;
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= limit ? oneLine : undefined;
}

function parameterText(parameter: ts.ParameterDeclaration): string {
  const name = parameter.name.getText();
  const optional = parameter.questionToken !== undefined || parameter.initializer !== undefined;
  const type = shortType(parameter.type?.getText());
  return `${parameter.dotDotDotToken ? '...' : ''}${name}${optional ? '?' : ''}${type ? `: ${type}` : ''}`;
}

/** `(a: A, b?)` and `: Result` (or `: …` when the result type is long) of a function-like declaration. */
export function callSignature(declaration: ts.SignatureDeclaration): string {
  const parameters = declaration.parameters.map(parameterText).join(', ');
  const written = declaration.type?.getText();
  const result = written === undefined ? '' : `: ${shortType(written) ?? '…'}`;
  const typeParameters = declaration.typeParameters ? `<${declaration.typeParameters.map((p) => p.name.text).join(', ')}>` : '';
  return `${typeParameters}(${parameters})${result}`;
}

/** The short form of a property, a variable or a constant: its type, or its value when that is a plain literal. */
export function valueSignature(declaration: ts.Declaration, checker: ts.TypeChecker): string {
  const initializer = (declaration as { initializer?: ts.Expression }).initializer;
  if (initializer && (ts.isNumericLiteral(initializer) || ts.isStringLiteral(initializer))) return ` = ${initializer.getText()}`;
  const written = (declaration as { type?: ts.TypeNode }).type?.getText();
  const type = written ?? checker.typeToString(checker.getTypeAtLocation(declaration));
  return `: ${shortType(type) ?? '…'}`;
}

/** The right-hand side of a type alias when it is short (a union of literals, a renamed type), else empty. */
export function aliasSignature(declaration: ts.TypeAliasDeclaration): string {
  const type = shortType(declaration.type.getText(), 60);
  return type === undefined || type.startsWith('{') ? '' : ` = ${type}`;
}
