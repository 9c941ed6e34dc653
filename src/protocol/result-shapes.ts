/**
 * The shapes of what the client hands out typed (src/protocol/mcp-types.ts),
 * checked before it does: every field a type requires, and every optional
 * field it names when present. Hand-written guards rather than ajv
 * validators compiled from the spec's schema.json: they check exactly what
 * the types promise in both eras, where compiled schemas would need one
 * compilation per era (measured 170-440 ms at startup) and cost more per
 * call (about 740 ns against 200-330 ns for a small CallToolResult); fields
 * MCP does not name are left alone either way.
 */
import { InvalidResultError } from './errors.ts';
import type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
} from './mcp-types.ts';
import {
  aBoolean,
  aNumber,
  anObject,
  arrayOf,
  aString,
  describePath,
  eitherOf,
  objectWith,
  oneOf,
  recordOf,
  taggedBy,
  type ShapeCheck,
} from './shape-check.ts';

const icons = arrayOf(objectWith({ src: aString }, { mimeType: aString, sizes: arrayOf(aString), theme: oneOf('light', 'dark') }));
const role = oneOf('user', 'assistant');
const annotations = objectWith({}, { audience: arrayOf(role), priority: aNumber, lastModified: aString });
const described = { title: aString, description: aString, icons, _meta: anObject };

const tool = objectWith(
  { name: aString, inputSchema: anObject },
  {
    ...described,
    outputSchema: anObject,
    annotations: objectWith({}, {
      title: aString,
      readOnlyHint: aBoolean,
      destructiveHint: aBoolean,
      idempotentHint: aBoolean,
      openWorldHint: aBoolean,
    }),
    execution: objectWith({}, { taskSupport: oneOf('forbidden', 'optional', 'required') }),
  },
);
const prompt = objectWith(
  { name: aString },
  { ...described, arguments: arrayOf(objectWith({ name: aString }, { title: aString, description: aString, required: aBoolean })) },
);
const resourceFields = { ...described, mimeType: aString, size: aNumber, annotations };
const resource = objectWith({ uri: aString, name: aString }, resourceFields);
const resourceTemplate = objectWith({ uriTemplate: aString, name: aString }, { ...described, mimeType: aString, annotations });
const resourceContents = eitherOf(
  objectWith({ uri: aString, text: aString }, { mimeType: aString, _meta: anObject }),
  objectWith({ uri: aString, blob: aString }, { mimeType: aString, _meta: anObject }),
);
const decorated = { annotations, _meta: anObject };
const contentBlock = taggedBy('type', {
  text: objectWith({ text: aString }, decorated),
  image: objectWith({ data: aString, mimeType: aString }, decorated),
  audio: objectWith({ data: aString, mimeType: aString }, decorated),
  resource_link: resource,
  resource: objectWith({ resource: resourceContents }, decorated),
});
const resultFields = { resultType: aString, _meta: anObject };

// structuredContent is not checked: any JSON value in the modern era, and the tool's outputSchema says the rest.
const callToolResult = objectWith({ content: arrayOf(contentBlock) }, { isError: aBoolean, ...resultFields });
const getPromptResult = objectWith(
  { messages: arrayOf(objectWith({ role, content: contentBlock })) },
  { description: aString, ...resultFields },
);
const readResourceResult = objectWith({ contents: arrayOf(resourceContents) }, { ttlMs: aNumber, cacheScope: aString, ...resultFields });
const completeResult = objectWith(
  { completion: objectWith({ values: arrayOf(aString) }, { total: aNumber, hasMore: aBoolean }) },
  resultFields,
);
const serverInfo = objectWith({ name: aString, version: aString }, { title: aString, description: aString, websiteUrl: aString, icons });
const listable = objectWith({}, { listChanged: aBoolean });
const serverCapabilities = objectWith({}, {
  tools: listable,
  prompts: listable,
  resources: objectWith({}, { subscribe: aBoolean, listChanged: aBoolean }),
  logging: anObject,
  completions: anObject,
  experimental: recordOf(anObject),
  tasks: anObject,
  extensions: recordOf(anObject),
});

/** The item type of each list helper's result. */
export interface ListItems {
  tools: Tool;
  prompts: Prompt;
  resources: Resource;
  resourceTemplates: ResourceTemplate;
}

const LIST_ITEMS: Record<keyof ListItems, ShapeCheck> = {
  tools: arrayOf(tool),
  prompts: arrayOf(prompt),
  resources: arrayOf(resource),
  resourceTemplates: arrayOf(resourceTemplate),
};

/** Results by the method that answers them. */
export interface TypedResults {
  'tools/call': CallToolResult;
  'prompts/get': GetPromptResult;
  'resources/read': ReadResourceResult;
  'completion/complete': CompleteResult;
}

const RESULTS: Record<keyof TypedResults, ShapeCheck> = {
  'tools/call': callToolResult,
  'prompts/get': getPromptResult,
  'resources/read': readResourceResult,
  'completion/complete': completeResult,
};

function check(shape: ShapeCheck, value: unknown, method: string, root: string): void {
  const found = shape(value);
  if (found) throw new InvalidResultError(method, describePath(root, found.path), found.expected, found.actual);
}

/** The result of `method`, typed once it has the shape MCP defines; throws InvalidResultError otherwise. */
export function checkedResult<M extends keyof TypedResults>(method: M, result: unknown): TypedResults[M] {
  check(RESULTS[method], result, method, 'result');
  return result as TypedResults[M];
}

/** Every page's items of one list, typed once each has its shape; `method` names the list request in the error. */
export function checkedList<L extends keyof ListItems>(list: L, method: string, items: unknown[]): ListItems[L][] {
  check(LIST_ITEMS[list], items, method, list);
  return items as ListItems[L][];
}

/**
 * Checks what negotiation learnt of the server (its serverInfo, when it sent
 * one, and its capabilities), which the client then hands out as ServerInfo
 * and ServerCapabilities; throws InvalidResultError. `method` is
 * `initialize` or `server/discover`.
 */
export function checkServer(method: string, info: unknown, capabilities: unknown): void {
  if (info !== undefined) check(serverInfo, info, method, 'serverInfo');
  check(serverCapabilities, capabilities, method, 'capabilities');
}
