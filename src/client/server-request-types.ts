/**
 * The three requests a server may ask of a client (`elicitation/create`,
 * `sampling/createMessage`, `roots/list`): their params and results as typed
 * by the 2025-11-25 and 2026-07-28 schemas (the shapes agree across both
 * eras), and the JSON Schemas both sides are checked against. A server's
 * params are untrusted input; a handler's result is checked before it is
 * sent, so a malformed one never reaches the server.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { commonJsExport } from '../runtime/commonjs-export.ts';
import type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  ListRootsParams,
  ListRootsResult,
} from '../protocol/client-request-shapes.ts';

export type * from '../protocol/client-request-shapes.ts';

/** Params and result of each request a server may send a client. */
export interface ServerRequestTypes {
  /** Asks the user for input: a form, or a page to visit. */
  'elicitation/create': { params: ElicitParams; result: ElicitResult };
  /** Asks the client's model to generate a message. */
  'sampling/createMessage': { params: CreateMessageParams; result: CreateMessageResult };
  /** Asks which roots the client lets the server work in. */
  'roots/list': { params: ListRootsParams; result: ListRootsResult };
}

/** The methods a client can register a handler for with `onRequest`. */
export type ServerRequestMethod = keyof ServerRequestTypes;

/** Every method of ServerRequestMethod, for checks on untyped input. */
export const SERVER_REQUEST_METHODS: readonly ServerRequestMethod[] = ['elicitation/create', 'sampling/createMessage', 'roots/list'];

/** Whether `method` is one a client can register a handler for. */
export const isServerRequestMethod = (method: unknown): method is ServerRequestMethod =>
  (SERVER_REQUEST_METHODS as readonly unknown[]).includes(method);

const meta = { type: 'object' };
const block = (type: string | string[], required: string[], properties: JsonObject) => ({
  type: 'object',
  required: ['type', ...required],
  properties: { type: Array.isArray(type) ? { enum: type } : { const: type }, _meta: meta, ...properties },
});
const contentBlock = {
  anyOf: [
    block('text', ['text'], { text: { type: 'string' } }),
    block(['image', 'audio'], ['data', 'mimeType'], { data: { type: 'string' }, mimeType: { type: 'string' } }),
    block('tool_use', ['id', 'name', 'input'], { id: { type: 'string' }, name: { type: 'string' }, input: { type: 'object' } }),
    block('tool_result', ['toolUseId', 'content'], { toolUseId: { type: 'string' }, content: { type: 'array' }, isError: { type: 'boolean' } }),
  ],
};
const content = { anyOf: [contentBlock, { type: 'array', items: contentBlock }] };
const role = { enum: ['user', 'assistant'] };

/** The results' schemas, as the spec's (both eras) define them. */
const RESULT_SCHEMAS: Record<ServerRequestMethod, JsonObject> = {
  'elicitation/create': {
    type: 'object',
    required: ['action'],
    properties: {
      _meta: meta,
      action: { enum: ['accept', 'decline', 'cancel'] },
      content: {
        type: 'object',
        additionalProperties: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: ['string', 'integer', 'number', 'boolean'] }] },
      },
    },
  },
  'sampling/createMessage': {
    type: 'object',
    required: ['role', 'content', 'model'],
    properties: { _meta: meta, role, content, model: { type: 'string' }, stopReason: { type: 'string' } },
  },
  'roots/list': {
    type: 'object',
    required: ['roots'],
    properties: {
      _meta: meta,
      roots: {
        type: 'array',
        items: { type: 'object', required: ['uri'], properties: { uri: { type: 'string', pattern: '^file://' }, name: { type: 'string' }, _meta: meta } },
      },
    },
  },
};

/** What a handler can rely on in the params (the rest is passed as the server sent it). */
const PARAMS_SCHEMAS: Record<ServerRequestMethod, JsonObject> = {
  'elicitation/create': {
    type: 'object',
    required: ['message'],
    properties: { message: { type: 'string' }, mode: { enum: ['form', 'url'] }, _meta: meta },
    if: { required: ['mode'], properties: { mode: { const: 'url' } } },
    then: { required: ['url'], properties: { url: { type: 'string' } } },
    else: { required: ['requestedSchema'], properties: { requestedSchema: { type: 'object', required: ['properties'], properties: { properties: { type: 'object' } } } } },
  },
  'sampling/createMessage': {
    type: 'object',
    required: ['messages', 'maxTokens'],
    properties: { messages: { type: 'array', items: { type: 'object', required: ['role', 'content'], properties: { role, content } } }, maxTokens: { type: 'integer' }, _meta: meta },
  },
  'roots/list': { type: 'object', properties: { _meta: meta } },
};

type Validators = Record<ServerRequestMethod, { params: ValidateFunction; result: ValidateFunction }>;

/**
 * Compiled on first use: a client that registers no handler never pays for
 * it, nor for loading ajv, which is imported here (dynamically, so bundlers
 * still include it) rather than when the client is.
 */
let compiling: Promise<Validators> | undefined;
function compiled(): Promise<Validators> {
  compiling ??= import('ajv').then((loaded) => {
    const Ajv = commonJsExport(loaded, 'Ajv') as typeof import('ajv').Ajv;
    const ajv = new Ajv({ allErrors: true, strict: false });
    const compile = (method: ServerRequestMethod) => ({ params: ajv.compile(PARAMS_SCHEMAS[method]), result: ajv.compile(RESULT_SCHEMAS[method]) });
    return { 'elicitation/create': compile('elicitation/create'), 'sampling/createMessage': compile('sampling/createMessage'), 'roots/list': compile('roots/list') };
  });
  return compiling;
}

const describe = (errors: ErrorObject[] | null | undefined): string[] =>
  (errors ?? []).slice(0, 8).map((error) => `${error.instancePath || '/'} ${error.message ?? 'is invalid'}`);

/** The problems of `value` as `method`'s params or result; empty when it conforms. */
export async function schemaProblems(method: ServerRequestMethod, part: 'params' | 'result', value: unknown): Promise<string[]> {
  const validate = (await compiled())[method][part];
  return validate(value) ? [] : describe(validate.errors);
}
