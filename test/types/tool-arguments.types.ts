/**
 * Type tests: checked by `tsc --noEmit` and by test/types/type-tests.test.ts
 * (which compiles this file and fails on any diagnostic). An
 * `@ts-expect-error` line here fails when its error goes away.
 */
import { expectTypeOf } from 'vitest';
import { createServer, type ToolArguments } from '../../src/server/index.ts';

const server = createServer({ name: 'types', version: '1.0.0' });

// Arguments typed from an inline schema: required keys required, others optional, enums as unions.
server.defineTool(
  'search',
  {
    description: 'Search',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        limit: { type: 'integer' },
        mode: { enum: ['fast', 'exact'] },
        tags: { type: 'array', items: { type: 'string' } },
        near: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } }, required: ['lat', 'lon'] },
      },
      required: ['query'],
      additionalProperties: false,
    },
  },
  (args) => {
    expectTypeOf(args.query).toEqualTypeOf<string>();
    expectTypeOf(args.limit).toEqualTypeOf<number | undefined>();
    expectTypeOf(args.mode).toEqualTypeOf<'fast' | 'exact' | undefined>();
    expectTypeOf(args.tags).toEqualTypeOf<string[] | undefined>();
    expectTypeOf(args.near).toEqualTypeOf<{ lat: number; lon: number; [key: string]: unknown } | undefined>();
    // @ts-expect-error: not a property of the schema, and additionalProperties is false
    void args.qurey;
    return { content: [{ type: 'text', text: args.query }] };
  },
);

// Without additionalProperties: false, other keys are there as unknown.
server.defineTool('open', { description: 'Open', inputSchema: { type: 'object', properties: { a: { type: 'boolean' } } } }, (args) => {
  expectTypeOf(args.a).toEqualTypeOf<boolean | undefined>();
  expectTypeOf(args['other']).toEqualTypeOf<unknown>();
  return { content: [] };
});

// A schema that is not a literal (held in a variable typed JsonObject) gives any JSON object, never something narrower.
const loose: Record<string, unknown> = { type: 'object' };
server.defineTool('loose', { description: 'Loose', inputSchema: loose }, (args) => {
  expectTypeOf(args).toEqualTypeOf<{ [key: string]: unknown }>();
  return { content: [] };
});

// A handler that declares a narrower argument type than the schema gives is refused.
server.defineTool(
  'mismatch',
  { description: 'Mismatch', inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
  // @ts-expect-error: the schema says n is a number
  (args: { n: string }) => ({ content: [{ type: 'text', text: args.n }] }),
);

expectTypeOf<ToolArguments<{ type: 'object'; properties: { x: { const: 3 } }; required: ['x'] }>>().toEqualTypeOf<{ x: 3; [key: string]: unknown }>();
expectTypeOf<ToolArguments<{ type: 'string' }>>().toEqualTypeOf<{ [key: string]: unknown }>();
