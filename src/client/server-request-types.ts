/**
 * The three requests a server may ask of a client (`elicitation/create`,
 * `sampling/createMessage`, `roots/list`): their params and results as typed
 * by the 2025-11-25 and 2026-07-28 schemas (the shapes agree across both
 * eras), and the JSON Schemas both sides are checked against. A server's
 * params are untrusted input; a handler's result is checked before it is
 * sent, so a malformed one never reaches the server.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { JsonObject } from '../protocol/jsonrpc.ts';

/** One field of a form elicitation's `requestedSchema` (a restricted, flat JSON Schema). */
export type ElicitFieldSchema = JsonObject & { type?: string; default?: unknown; enum?: unknown[] };

/** `elicitation/create` in form mode (`mode` absent means form). */
export interface ElicitFormParams {
  mode?: 'form';
  message: string;
  requestedSchema: { type: 'object'; properties: Record<string, ElicitFieldSchema>; required?: string[]; $schema?: string };
  _meta?: JsonObject;
}

/** `elicitation/create` in URL mode: the user is sent to `url` out of band. */
export interface ElicitUrlParams {
  mode: 'url';
  message: string;
  url: string;
  /** Legacy era (2025-11-25) only: the server's identifier of this elicitation. */
  elicitationId?: string;
  _meta?: JsonObject;
}

/** The params of `elicitation/create`. */
export type ElicitParams = ElicitFormParams | ElicitUrlParams;

/** A form field's value: string, number, boolean or a list of strings (multi-select). */
export type ElicitValue = string | number | boolean | string[];

/** The answer to `elicitation/create`. */
export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  /** The submitted form, only with `accept` in form mode. */
  content?: Record<string, ElicitValue>;
  _meta?: JsonObject;
}

/** One content block of a sampling message (text, image, audio, tool use or tool result). */
export type SamplingContent =
  | { type: 'text'; text: string; annotations?: JsonObject; _meta?: JsonObject }
  | { type: 'image' | 'audio'; data: string; mimeType: string; annotations?: JsonObject; _meta?: JsonObject }
  | { type: 'tool_use'; id: string; name: string; input: JsonObject; _meta?: JsonObject }
  | { type: 'tool_result'; toolUseId: string; content: JsonObject[]; isError?: boolean; structuredContent?: unknown; _meta?: JsonObject };

/** A message of a sampling conversation. */
export interface SamplingMessage {
  role: 'user' | 'assistant';
  content: SamplingContent | SamplingContent[];
  _meta?: JsonObject;
}

/** The params of `sampling/createMessage`. */
export interface CreateMessageParams {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
  stopSequences?: string[];
  includeContext?: 'none' | 'thisServer' | 'allServers';
  modelPreferences?: JsonObject;
  metadata?: JsonObject;
  tools?: JsonObject[];
  toolChoice?: JsonObject;
  _meta?: JsonObject;
}

/** The answer to `sampling/createMessage`. */
export interface CreateMessageResult {
  role: 'user' | 'assistant';
  content: SamplingContent | SamplingContent[];
  model: string;
  stopReason?: string;
  _meta?: JsonObject;
}

/** A root the client lets the server work in (a `file://` URI). */
export interface Root {
  uri: string;
  name?: string;
  _meta?: JsonObject;
}

/** The params of `roots/list` (nothing but `_meta`). */
export interface ListRootsParams {
  _meta?: JsonObject;
}

/** The answer to `roots/list`. */
export interface ListRootsResult {
  roots: Root[];
  _meta?: JsonObject;
}

/** Params and result of each request a server may send a client. */
export interface ServerRequestTypes {
  'elicitation/create': { params: ElicitParams; result: ElicitResult };
  'sampling/createMessage': { params: CreateMessageParams; result: CreateMessageResult };
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
let validators: Validators | undefined;

/** Compiled on first use: a client that registers no handler never pays for it. */
function compiled(): Validators {
  if (validators) return validators;
  const ajv = new Ajv({ allErrors: true, strict: false });
  const compile = (method: ServerRequestMethod) => ({ params: ajv.compile(PARAMS_SCHEMAS[method]), result: ajv.compile(RESULT_SCHEMAS[method]) });
  validators = { 'elicitation/create': compile('elicitation/create'), 'sampling/createMessage': compile('sampling/createMessage'), 'roots/list': compile('roots/list') };
  return validators;
}

const describe = (errors: ErrorObject[] | null | undefined): string[] =>
  (errors ?? []).slice(0, 8).map((error) => `${error.instancePath || '/'} ${error.message ?? 'is invalid'}`);

/** The problems of `value` as `method`'s params or result; empty when it conforms. */
export function schemaProblems(method: ServerRequestMethod, part: 'params' | 'result', value: unknown): string[] {
  const validate = compiled()[method][part];
  return validate(value) ? [] : describe(validate.errors);
}
