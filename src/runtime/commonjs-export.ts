/**
 * One named export of a CommonJS package loaded with `import()`. Node gives
 * a CommonJS package's exports as named exports, but a bundler that splits
 * code (esbuild with `splitting`) may give them only as the default export
 * of the chunk it made for the import; an application that bundles this
 * package must still find them.
 */
export function commonJsExport(loaded: object, name: string): unknown {
  const named: unknown = (loaded as Record<string, unknown>)[name];
  if (named !== undefined) return named;
  const fallback = (loaded as { default?: Record<string, unknown> }).default;
  return fallback?.[name];
}
