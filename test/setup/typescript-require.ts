/**
 * What `import ts from 'typescript'` gives in a vitest run (vitest.config.ts points the bare specifier here): the
 * same module.exports, loaded with require(). typescript.js is CommonJS, and Node's `import` of it first scans all
 * 9 MB of it for named exports (cjs-module-lexer): ~0.4 s CPU more in every worker and global setup that loads it.
 * The default import is the only form the tests use.
 */
import { createRequire } from 'node:module';
import type TypeScript from 'typescript';

const ts: typeof TypeScript = createRequire(import.meta.url)('typescript');
export default ts;
