/**
 * The type of a tool's arguments, read from its `inputSchema` at compile
 * time. We chose JSON Schema written as a literal over accepting a Standard
 * Schema (zod, valibot): MCP lists tools with JSON Schema, the server already
 * validates arguments against exactly that schema (tool-schemas.ts), and a
 * Standard Schema carries no JSON Schema to list, so a second schema library
 * would describe the same tool twice and could disagree with the one the
 * client sees. The subset below covers what tool schemas use; anything
 * outside it is typed `unknown`, never something narrower than the schema.
 */

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type RequiredKeys<S> = S extends { readonly required: readonly (infer R)[] } ? Extract<R, string> : never;

/** Properties the schema allows besides the listed ones: none with `additionalProperties: false`. */
type OtherProperties<S> = S extends { readonly additionalProperties: false } ? {} : { [key: string]: unknown };

type ObjectOf<S> = S extends { readonly properties: infer P }
  ? Simplify<
      { -readonly [K in Extract<keyof P, RequiredKeys<S>>]: SchemaValue<P[K]> } & {
        -readonly [K in Exclude<keyof P, RequiredKeys<S>>]?: SchemaValue<P[K]>;
      } & OtherProperties<S>
    >
  : { [key: string]: unknown };

type OfTypeName<T, S> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? S extends { readonly items: infer I }
            ? SchemaValue<I>[]
            : unknown[]
          : T extends 'object'
            ? ObjectOf<S>
            : unknown;

/**
 * The TypeScript type of the values a JSON Schema literal accepts: `type`
 * (one or several), `properties` with `required`, `additionalProperties:
 * false`, `items`, `enum`, `const`, `anyOf` and `oneOf`.
 */
export type SchemaValue<S> = S extends { readonly const: infer C }
  ? C
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly anyOf: readonly (infer A)[] }
      ? SchemaValue<A>
      : S extends { readonly oneOf: readonly (infer A)[] }
        ? SchemaValue<A>
        : S extends { readonly type: readonly (infer T)[] }
          ? OfTypeName<T, S>
          : S extends { readonly type: infer T }
            ? OfTypeName<T, S>
            : unknown;

/**
 * What a tool handler receives for an `inputSchema` of type `S`: the
 * schema's object type when `S` is a literal object schema, else any JSON
 * object (a schema held in a variable typed `JsonObject`, say).
 */
export type ToolArguments<S> = [SchemaValue<S>] extends [infer A]
  ? unknown extends A
    ? { [key: string]: unknown }
    : A extends { [key: string]: unknown }
      ? A
      : { [key: string]: unknown }
  : never;
