/**
 * What MCP defines, as TypeScript types for both eras: the legacy era
 * (2024-11-05 … 2025-11-25) and the modern era (2026-07-28). Where the eras
 * differ, a field says which era has it; every interface has exactly the
 * union of both eras' schema properties (test/protocol/mcp-types.test.ts
 * compares them with the specification's schema.json files). Servers may add
 * fields of their own, which these types do not name.
 */
import type { JsonObject } from './jsonrpc.ts';

/** Who a message or a piece of content is for. */
export type Role = 'user' | 'assistant';

/** An icon a user interface may show for a tool, prompt, resource or implementation. */
export interface Icon {
  /** An HTTP(S) URL or a `data:` URI. */
  src: string;
  /** The image's MIME type, when the URL does not say it. */
  mimeType?: string;
  /** `WxH` strings such as `48x48`, or `any`. */
  sizes?: string[];
  /** The colour theme the icon is drawn for. */
  theme?: 'light' | 'dark';
}

/** Hints about how content or a resource is meant to be used. */
export interface Annotations {
  /** Who the content is for: the user, the model (`assistant`), or both. */
  audience?: Role[];
  /** 0 (least) to 1 (most important). */
  priority?: number;
  /** ISO 8601. */
  lastModified?: string;
}

/** Hints about a tool's behaviour; never trust them from an untrusted server. */
export interface ToolAnnotations {
  /** A human-readable title. */
  title?: string;
  /** The tool does not modify its environment. */
  readOnlyHint?: boolean;
  /** An update may destroy data (meaningful when not read-only). */
  destructiveHint?: boolean;
  /** Calling again with the same arguments has no further effect. */
  idempotentHint?: boolean;
  /** The tool reaches outside entities (the web, other systems), not a closed domain. */
  openWorldHint?: boolean;
}

/** A tool as `tools/list` lists it. */
export interface Tool {
  /** The name `tools/call` takes; unique on the server. */
  name: string;
  /** A human-readable name for user interfaces. */
  title?: string;
  /** What the tool does, for the model to read. */
  description?: string;
  /** JSON Schema of the arguments (an object schema). */
  inputSchema: JsonObject;
  /** JSON Schema of `structuredContent` in the tool's results. */
  outputSchema?: JsonObject;
  /** Behaviour hints (read-only, destructive…). */
  annotations?: ToolAnnotations;
  /** Icons a user interface may show. */
  icons?: Icon[];
  /** Legacy era (2025-11-25): whether the tool runs as a task (`forbidden`, `optional`, `required`). */
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' };
  _meta?: JsonObject;
}

/** One argument a prompt takes. */
export interface PromptArgument {
  /** The argument's name, the key in `prompts/get` arguments. */
  name: string;
  /** A human-readable name for user interfaces. */
  title?: string;
  /** What the argument is for. */
  description?: string;
  /** Whether `prompts/get` must give it. */
  required?: boolean;
}

/** A prompt as `prompts/list` lists it. */
export interface Prompt {
  /** The name `prompts/get` takes; unique on the server. */
  name: string;
  /** A human-readable name for user interfaces. */
  title?: string;
  /** What the prompt is for. */
  description?: string;
  /** The arguments it takes. */
  arguments?: PromptArgument[];
  /** Icons a user interface may show. */
  icons?: Icon[];
  _meta?: JsonObject;
}

/** A resource as `resources/list` lists it. */
export interface Resource {
  /** The URI `resources/read` takes. */
  uri: string;
  /** A name for the resource. */
  name: string;
  /** A human-readable name for user interfaces. */
  title?: string;
  /** What the resource holds. */
  description?: string;
  /** The MIME type of its contents, when known. */
  mimeType?: string;
  /** Size in bytes of the raw content, when known. */
  size?: number;
  /** Audience, priority and last modification. */
  annotations?: Annotations;
  /** Icons a user interface may show. */
  icons?: Icon[];
  _meta?: JsonObject;
}

/** A resource template as `resources/templates/list` lists it. */
export interface ResourceTemplate {
  /** An RFC 6570 URI template. */
  uriTemplate: string;
  /** A name for the resources it describes. */
  name: string;
  /** A human-readable name for user interfaces. */
  title?: string;
  /** What the resources it describes hold. */
  description?: string;
  /** The MIME type of every matching resource, when they share one. */
  mimeType?: string;
  /** Audience, priority and last modification. */
  annotations?: Annotations;
  /** Icons a user interface may show. */
  icons?: Icon[];
  _meta?: JsonObject;
}

/** A resource's text contents. */
export interface TextResourceContents {
  /** The resource's URI. */
  uri: string;
  /** The MIME type of `text`, when known. */
  mimeType?: string;
  /** The contents, as text. */
  text: string;
  _meta?: JsonObject;
}

/** A resource's binary contents, base64. */
export interface BlobResourceContents {
  /** The resource's URI. */
  uri: string;
  /** The MIME type of `blob`, when known. */
  mimeType?: string;
  /** The contents, base64-encoded. */
  blob: string;
  _meta?: JsonObject;
}

/** Text content. */
export interface TextContent {
  /** Discriminates the content blocks. */
  type: 'text';
  /** The text. */
  text: string;
  /** Audience, priority and last modification. */
  annotations?: Annotations;
  _meta?: JsonObject;
}

/** An image, base64. */
export interface ImageContent {
  /** Discriminates the content blocks. */
  type: 'image';
  /** The image, base64-encoded. */
  data: string;
  /** The image's MIME type, e.g. `image/png`. */
  mimeType: string;
  /** Audience, priority and last modification. */
  annotations?: Annotations;
  _meta?: JsonObject;
}

/** Audio, base64. */
export interface AudioContent {
  /** Discriminates the content blocks. */
  type: 'audio';
  /** The audio, base64-encoded. */
  data: string;
  /** The audio's MIME type, e.g. `audio/wav`. */
  mimeType: string;
  /** Audience, priority and last modification. */
  annotations?: Annotations;
  _meta?: JsonObject;
}

/** A link to a resource the client may read. */
export interface ResourceLink extends Resource {
  /** Discriminates the content blocks. */
  type: 'resource_link';
}

/** A resource's contents embedded in a result. */
export interface EmbeddedResource {
  /** Discriminates the content blocks. */
  type: 'resource';
  /** The embedded contents, text or base64. */
  resource: TextResourceContents | BlobResourceContents;
  /** Audience, priority and last modification. */
  annotations?: Annotations;
  _meta?: JsonObject;
}

/** One block of a tool result or prompt message; switch on `type`. */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** What `tools/call` answers (a completed call; see the input-required retries for the other kind). */
export interface CallToolResult {
  /** What the tool produced (or, with `isError`, how it failed). */
  content: ContentBlock[];
  /** Conforms to the tool's `outputSchema` when it has one. */
  structuredContent?: JsonObject;
  /** The tool failed; `content` says how, for the model to read. */
  isError?: boolean;
  /** Modern era: `complete` for a finished call. */
  resultType?: string;
  _meta?: JsonObject;
}

/** One message of a prompt. */
export interface PromptMessage {
  /** Who says the message. */
  role: Role;
  /** What the message says. */
  content: ContentBlock;
}

/** What `prompts/get` answers. */
export interface GetPromptResult {
  /** A description of the prompt as filled in. */
  description?: string;
  /** The prompt's messages, arguments filled in. */
  messages: PromptMessage[];
  /** Modern era: `complete` for a finished call. */
  resultType?: string;
  _meta?: JsonObject;
}

/** What `resources/read` answers. */
export interface ReadResourceResult {
  /** The resource's contents; one entry per resource read (a directory-like URI may yield several). */
  contents: (TextResourceContents | BlobResourceContents)[];
  /** Modern era: how long (ms) the result may be reused, and by whom. */
  ttlMs?: number;
  /** Modern era: `private` or `public` reuse of the result. */
  cacheScope?: string;
  /** Modern era: `complete` for a finished call. */
  resultType?: string;
  _meta?: JsonObject;
}

/** The server's name and version (`serverInfo`; the spec's Implementation). */
export interface ServerInfo {
  /** The implementation's name. */
  name: string;
  /** The implementation's version. */
  version: string;
  /** A human-readable name for user interfaces. */
  title?: string;
  /** What the server is for. */
  description?: string;
  /** A page about the server. */
  websiteUrl?: string;
  /** Icons a user interface may show. */
  icons?: Icon[];
}

/** What a server says it can do; not a closed set. */
export interface ServerCapabilities {
  /** It serves tools; `listChanged`: it notifies when the list changes. */
  tools?: { listChanged?: boolean } & JsonObject;
  /** It serves prompts; `listChanged`: it notifies when the list changes. */
  prompts?: { listChanged?: boolean } & JsonObject;
  /** It serves resources; `subscribe`: per-URI updates, `listChanged`: it notifies when the list changes. */
  resources?: { subscribe?: boolean; listChanged?: boolean } & JsonObject;
  /** It sends log messages. */
  logging?: JsonObject;
  /** It completes prompt and resource-template arguments. */
  completions?: JsonObject;
  /** Non-standard capabilities, by name. */
  experimental?: Record<string, JsonObject>;
  /** Legacy era (2025-11-25): task-augmented requests. */
  tasks?: JsonObject;
  /** Modern era: MCP extensions by identifier, each with its settings. */
  extensions?: Record<string, JsonObject>;
}
