/**
 * What MCP defines, as TypeScript types for both eras: the legacy era
 * (2024-11-05 … 2025-11-25) and the modern era (2026-07-28). Where the eras
 * differ, a field says which era has it; every type has exactly the
 * union of both eras' schema properties (test/protocol/mcp-types.test.ts
 * compares them with the specification's schema.json files). Servers may add
 * fields of their own, which these types do not name. Object types rather
 * than interfaces: a value of one is then also a JsonObject (an interface
 * has no implicit index signature), so a typed result goes wherever JSON does.
 */
import type { JsonObject } from './jsonrpc.ts';

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Who a message or a piece of content is for. */
export type Role = 'user' | 'assistant';

/** An icon a user interface may show for a tool, prompt, resource or implementation. */
export type Icon = {
  /** An HTTP(S) URL or a `data:` URI. */
  src: string;
  mimeType?: string;
  /** `WxH` strings such as `48x48`, or `any`. */
  sizes?: string[];
  theme?: 'light' | 'dark';
};

/** Hints about how content or a resource is meant to be used. */
export type Annotations = {
  audience?: Role[];
  /** 0 (least) to 1 (most important). */
  priority?: number;
  /** ISO 8601. */
  lastModified?: string;
};

/** Hints about a tool's behaviour; never trust them from an untrusted server. */
export type ToolAnnotations = {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
};

/** A tool as `tools/list` lists it. */
export type Tool = {
  name: string;
  title?: string;
  description?: string;
  /** JSON Schema of the arguments (an object schema). */
  inputSchema: JsonObject;
  /** JSON Schema of `structuredContent` in the tool's results. */
  outputSchema?: JsonObject;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  /** Legacy era (2025-11-25): whether the tool runs as a task (`forbidden`, `optional`, `required`). */
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' };
  _meta?: JsonObject;
};

/** One argument a prompt takes. */
export type PromptArgument = {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
};

/** A prompt as `prompts/list` lists it. */
export type Prompt = {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: JsonObject;
};

/** A resource as `resources/list` lists it. */
export type Resource = {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Size in bytes of the raw content, when known. */
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: JsonObject;
};

/** A resource template as `resources/templates/list` lists it. */
export type ResourceTemplate = {
  /** An RFC 6570 URI template. */
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: JsonObject;
};

/** A resource's text contents. */
export type TextResourceContents = {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: JsonObject;
};

/** A resource's binary contents, base64. */
export type BlobResourceContents = {
  uri: string;
  mimeType?: string;
  blob: string;
  _meta?: JsonObject;
};

/** Text content. */
export type TextContent = {
  type: 'text';
  text: string;
  annotations?: Annotations;
  _meta?: JsonObject;
};

/** An image, base64. */
export type ImageContent = {
  type: 'image';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: JsonObject;
};

/** Audio, base64. */
export type AudioContent = {
  type: 'audio';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: JsonObject;
};

/** A link to a resource the client may read. */
export type ResourceLink = Resource & {
  type: 'resource_link';
};

/** A resource's contents embedded in a result. */
export type EmbeddedResource = {
  type: 'resource';
  resource: TextResourceContents | BlobResourceContents;
  annotations?: Annotations;
  _meta?: JsonObject;
};

/** One block of a tool result or prompt message; switch on `type`. */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** What `tools/call` answers (a completed call; see the input-required retries for the other kind). */
export type CallToolResult = {
  content: ContentBlock[];
  /**
   * Conforms to the tool's `outputSchema` when it has one. Legacy era: an
   * object; modern era: any JSON value.
   */
  structuredContent?: JsonValue;
  /** The tool failed; `content` says how, for the model to read. */
  isError?: boolean;
  /** Modern era: `complete` for a finished call. */
  resultType?: string;
  _meta?: JsonObject;
};

/** One message of a prompt. */
export type PromptMessage = {
  role: Role;
  content: ContentBlock;
};

/** What `prompts/get` answers. */
export type GetPromptResult = {
  description?: string;
  messages: PromptMessage[];
  /** Modern era: `complete` for a finished call. */
  resultType?: string;
  _meta?: JsonObject;
};

/** What `resources/read` answers. */
export type ReadResourceResult = {
  contents: (TextResourceContents | BlobResourceContents)[];
  /** Modern era: how long (ms) the result may be reused, and by whom. */
  ttlMs?: number;
  /** Modern era: `private` or `public` reuse of the result. */
  cacheScope?: string;
  /** Modern era: `complete` for a finished call. */
  resultType?: string;
  _meta?: JsonObject;
};

/** A prompt whose argument `completion/complete` completes. */
export type PromptReference = {
  type: 'ref/prompt';
  name: string;
  title?: string;
};

/** A resource template whose URI variable `completion/complete` completes. */
export type ResourceTemplateReference = {
  type: 'ref/resource';
  uri: string;
};

/** What `completion/complete` asks: suggestions for one argument of a prompt or a resource template. */
export type CompleteParams = {
  ref: PromptReference | ResourceTemplateReference;
  /** The argument being completed and its partial value. */
  argument: { name: string; value: string };
  /** The values of arguments already filled in. */
  context?: { arguments?: Record<string, string> };
};

/** What `completion/complete` answers: at most 100 suggestions for the argument's value. */
export type CompleteResult = {
  completion: {
    values: string[];
    /** How many suggestions there are in all, when known (may exceed `values.length`). */
    total?: number;
    /** More suggestions exist than `values` holds. */
    hasMore?: boolean;
  };
  /** Modern era: `complete` for a finished call. */
  resultType?: string;
  _meta?: JsonObject;
};

/** The server's name and version (`serverInfo`; the spec's Implementation). */
export type ServerInfo = {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
};

/** What a server says it can do; not a closed set. */
export type ServerCapabilities = {
  tools?: { listChanged?: boolean } & JsonObject;
  prompts?: { listChanged?: boolean } & JsonObject;
  resources?: { subscribe?: boolean; listChanged?: boolean } & JsonObject;
  logging?: JsonObject;
  completions?: JsonObject;
  experimental?: Record<string, JsonObject>;
  /** Legacy era (2025-11-25): task-augmented requests. */
  tasks?: JsonObject;
  /** Modern era: MCP extensions by identifier, each with its settings. */
  extensions?: Record<string, JsonObject>;
};
