/**
 * Tool arguments checked against the tool's whole `inputSchema` (by the
 * server), and structured results against its `outputSchema` (by the
 * client, tool-output-checks.ts), as JSON Schema (2020-12 unless the schema's `$schema` names draft-07 or 2019-09),
 * compiled once when the tool is defined. ajv compiles, because compiling
 * is where it refuses a malformed schema or an unresolvable `$ref`, so a
 * broken tool never gets registered; unknown keywords (`x-…`, annotations)
 * are allowed, as tool schemas carry them.
 *
 * The check against the dialect's meta-schema is one validator per dialect
 * for the whole process, not one per server: ajv compiles a meta-schema the
 * first time an engine checks a schema, and that compile (the 2020-12
 * vocabularies above all) was most of what defining a server's tools cost,
 * paid again by every server a process creates. A meta-schema validator
 * holds no tool's schema, so sharing it shares nothing between servers.
 * A plain schema (plain-schema.ts) skips that check, so a process whose
 * tools are all plain never compiles a meta-schema at all.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { messageOf } from '../../machines/errors.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { InvalidToolSchemaError } from './definition-errors.ts';
import { isPlainSchema } from './plain-schema.ts';

/** Why a value does not fit the schema (a tool's arguments its `inputSchema`, for the tool error the model reads). */
export type SchemaCheck = (value: unknown) => string | undefined;

type Draft = '2020-12' | '2019-09' | 'draft-07';

const DRAFTS: Readonly<Record<string, Draft>> = {
  'https://json-schema.org/draft/2020-12/schema': '2020-12',
  'https://json-schema.org/draft/2019-09/schema': '2019-09',
  'http://json-schema.org/draft-07/schema': 'draft-07',
};

// ajv-formats is CommonJS; its exports carry the plugin as `default` too, which is the one shape ESM and the types agree on.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;

/** What a tool's schema checks: where its problems are placed from, and its name in the tool definition. */
const PARTS = {
  arguments: { root: 'arguments', schema: 'inputSchema' },
  'structured content': { root: 'structuredContent', schema: 'outputSchema' },
} as const;

/** At most this many problems are named in one tool error. */
const MAX_PROBLEMS = 5;

/** One problem, placed from `root`: `arguments/city must be string`. */
function describe(error: ErrorObject, root: string): string {
  const where = `${root}${error.instancePath}`;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') return `${where} has unexpected property ${JSON.stringify(params.additionalProperty)}`;
  if (error.keyword === 'required') return `${where} is missing required property ${JSON.stringify(params.missingProperty)}`;
  if (error.keyword === 'enum') return `${where} must be one of ${JSON.stringify(params.allowedValues)}`;
  return `${where} ${error.message ?? `fails ${error.keyword}`}`;
}

/** Compiles tool schemas; one per server (or client), so compiled schemas go when their tool does. */
export class ToolSchemaCompiler {
  private readonly engines = new Map<Draft, Ajv>();
  /** `<part> <tool>` → the schema compiled for it, to release. */
  private readonly compiled = new Map<string, JsonObject>();

  /** Compiles `schema` for `tool`'s `part`; throws InvalidToolSchemaError when it does not compile. */
  compile(tool: string, schema: JsonObject, part: keyof typeof PARTS = 'arguments'): SchemaCheck {
    const declared = typeof schema.$schema === 'string' ? schema.$schema.replace(/#$/, '') : undefined;
    const draft = declared === undefined ? '2020-12' : DRAFTS[declared];
    const { root, schema: which } = PARTS[part];
    if (draft === undefined) {
      throw new InvalidToolSchemaError(tool, `$schema ${JSON.stringify(schema.$schema)} is not a supported dialect (2020-12, 2019-09, draft-07)`, {}, which);
    }
    // The old schema goes first, so a tool redefined with the same `$id` does not collide with itself.
    const key = `${part} ${tool}`;
    this.releaseKey(key);
    let validate: ValidateFunction;
    try {
      // A plain schema fits every dialect's meta-schema (plain-schema.ts): the check would compile it for nothing.
      if (!isPlainSchema(schema)) metaSchemaCheck(draft, schema);
      validate = this.engine(draft).compile(schema);
    } catch (cause) {
      throw new InvalidToolSchemaError(tool, messageOf(cause), { cause }, which);
    }
    this.compiled.set(key, schema);
    return (value) => {
      if (validate(value)) return undefined;
      const problems = (validate.errors ?? []).slice(0, MAX_PROBLEMS).map((error) => describe(error, root));
      return `Invalid ${part} for tool ${tool}: ${problems.join('; ')}`;
    };
  }

  /** Forgets the compiled schemas of a tool that was removed or replaced. */
  release(tool: string): void {
    for (const part of Object.keys(PARTS)) this.releaseKey(`${part} ${tool}`);
  }

  private releaseKey(key: string): void {
    const schema = this.compiled.get(key);
    if (schema === undefined) return;
    this.compiled.delete(key);
    for (const engine of this.engines.values()) engine.removeSchema(schema);
  }

  private engine(draft: Draft): Ajv {
    let engine = this.engines.get(draft);
    if (!engine) {
      // compile() checks against the meta-schema first (metaSchemaCheck), so the engine does not again.
      engine = createEngine(draft, false);
      this.engines.set(draft, engine);
    }
    return engine;
  }
}

function createEngine(draft: Draft, validateSchema: boolean): Ajv {
  const options = { strict: false, allErrors: true, validateFormats: true, validateSchema };
  const engine = draft === '2020-12' ? new Ajv2020(options) : draft === '2019-09' ? new Ajv2019(options) : new Ajv(options);
  addFormats(engine);
  return engine;
}

/** One meta-schema checker per dialect for the process (see the note at the top); it only ever validates, never adds. */
const metaSchemaCheckers = new Map<Draft, Ajv>();

/** Throws ajv's own `schema is invalid: …` error when `schema` does not fit its dialect's meta-schema. */
function metaSchemaCheck(draft: Draft, schema: JsonObject): void {
  let checker = metaSchemaCheckers.get(draft);
  if (!checker) {
    checker = createEngine(draft, true);
    metaSchemaCheckers.set(draft, checker);
  }
  checker.validateSchema(schema, true);
}
