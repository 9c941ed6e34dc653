/**
 * The server's tools, prompts and resources, changeable at any time. Lists
 * come back in a deterministic order (sorted by name, resources by URI) and
 * are paginated with an opaque cursor naming the last item of the previous
 * page, so a page boundary survives items being added or removed between
 * calls.
 */
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { CacheHint } from './caching.ts';
import { InvalidParamsError } from './errors.ts';
import type { SchemaCheck } from './tool-schemas.ts';
import type { RequestContext } from './request-context.ts';
import type { InputRequiredResult } from './input-required.ts';
import type { ResourceTemplateBinding, ResourceTemplateDefinition } from './resource-templates.ts';
import type { CompleteCallback } from './completions.ts';

/** A tool as listed; `Schema` is the literal type of `inputSchema`, from which the handler's arguments are typed. */
export interface ToolDefinition<Schema extends JsonObject = JsonObject> {
  /** A human-readable name for user interfaces. */
  title?: string;
  /** What the tool does, for the model to read. */
  description: string;
  /** JSON Schema (2020-12 unless `$schema` says otherwise) the arguments are checked against before the handler runs. */
  inputSchema: Schema;
  /** JSON Schema of `structuredContent` in the tool's results, listed for clients. */
  outputSchema?: JsonObject;
  /** Behaviour hints (`readOnlyHint`, `destructiveHint`…), listed as given. */
  annotations?: JsonObject;
  /** Client capabilities the tool needs, e.g. `{ sampling: {} }`; calls without them get -32021. */
  requiresClientCapabilities?: Record<string, object>;
}

/** What a tool handler returns: content blocks, and optionally structured content or a tool error. */
export interface ToolResult {
  /** What the tool produced, as content blocks. */
  content: JsonObject[];
  /** A JSON result fitting the tool's `outputSchema`. */
  structuredContent?: JsonObject;
  /** The tool failed; `content` says how, for the model to read. */
  isError?: boolean;
  [key: string]: unknown;
}

/**
 * A tool's code: its result, or `inputRequired(...)` to be called again with the client's answers. `args` has
 * already passed the tool's `inputSchema`; `Args` is the type `defineTool` reads from that schema.
 */
export type ToolHandler<Args extends object = Record<string, unknown>> = (
  args: Args,
  context: RequestContext,
) => ToolResult | InputRequiredResult | Promise<ToolResult | InputRequiredResult>;

/** One argument a prompt takes, as listed, with an optional completion callback. */
export interface PromptArgument {
  /** The argument's name, the key in `prompts/get` arguments. */
  name: string;
  /** What the argument is for. */
  description?: string;
  /** Whether `prompts/get` must give it (checked before the handler runs). */
  required?: boolean;
  /** Suggests values for this argument (`completion/complete` with `ref/prompt`); not listed. */
  complete?: CompleteCallback;
}

/** A prompt as listed. */
export interface PromptDefinition {
  /** A human-readable name for user interfaces. */
  title?: string;
  /** What the prompt is for. */
  description?: string;
  /** The arguments it takes. */
  arguments?: PromptArgument[];
}

/** What a prompt handler returns: the prompt's messages. */
export interface PromptResult {
  /** A description of the prompt as filled in. */
  description?: string;
  /** The messages, arguments filled in. */
  messages: JsonObject[];
  [key: string]: unknown;
}

/** A prompt's code: its messages, or `inputRequired(...)` to be called again with the client's answers. */
export type PromptHandler = (
  args: Record<string, string>,
  context: RequestContext,
) => PromptResult | InputRequiredResult | Promise<PromptResult | InputRequiredResult>;

/** A resource as listed, with its caching hints. */
export interface ResourceDefinition {
  /** A name for the resource. */
  name: string;
  /** A human-readable name for user interfaces. */
  title?: string;
  /** What the resource holds. */
  description?: string;
  /** The MIME type of its contents, when known. */
  mimeType?: string;
  /** This resource's own `resources/read` caching hints (modern era), over the server's `caching.read`; not listed. */
  caching?: Partial<CacheHint>;
}

/** What a resource reader returns: text or base64 contents for one URI. */
export interface ResourceContents {
  /** The URI the contents are of. */
  uri: string;
  /** The MIME type of the contents, when known. */
  mimeType?: string;
  /** The contents as text. */
  text?: string;
  /** The contents, base64-encoded (instead of `text`). */
  blob?: string;
}

/** A resource's reader: its contents, or `inputRequired(...)` to be called again with the client's answers. */
export type ResourceReader = (
  uri: string,
  context: RequestContext,
) => ResourceContents[] | InputRequiredResult | Promise<ResourceContents[] | InputRequiredResult>;

interface Entry<D, H> {
  key: string;
  definition: D;
  handler: H;
}

/** One sorted, paginated collection. */
export class Catalog<D, H> {
  private readonly entries = new Map<string, Entry<D, H>>();
  private sorted: Entry<D, H>[] | undefined;

  set(key: string, definition: D, handler: H): void {
    this.entries.set(key, { key, definition, handler });
    this.sorted = undefined;
  }

  delete(key: string): boolean {
    const removed = this.entries.delete(key);
    if (removed) this.sorted = undefined;
    return removed;
  }

  get(key: string): Entry<D, H> | undefined {
    return this.entries.get(key);
  }

  /** Every entry, sorted by key. */
  all(): readonly Entry<D, H>[] {
    this.sorted ??= [...this.entries.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return this.sorted;
  }

  page(cursor: unknown, pageSize: number): { items: Entry<D, H>[]; nextCursor?: string } {
    const sorted = this.all();
    let start = 0;
    if (cursor !== undefined) {
      const after = decodeCursor(cursor);
      // First entry sorting after the last one already returned.
      let low = 0;
      let high = sorted.length;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (sorted[mid]!.key <= after) low = mid + 1;
        else high = mid;
      }
      start = low;
    }
    const items = sorted.slice(start, start + pageSize);
    const more = start + pageSize < sorted.length;
    return more ? { items, nextCursor: encodeCursor(items[items.length - 1]!.key) } : { items };
  }
}

const encodeCursor = (key: string): string => Buffer.from(JSON.stringify({ after: key }), 'utf8').toString('base64url');

function decodeCursor(cursor: unknown): string {
  if (typeof cursor !== 'string') throw new InvalidParamsError('cursor must be a string');
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (typeof value === 'object' && value !== null && typeof (value as { after?: unknown }).after === 'string') {
      return (value as { after: string }).after;
    }
  } catch {
    // fall through to the error below
  }
  throw new InvalidParamsError('invalid cursor');
}

/** A defined tool's handler with its compiled argument check, and the check of its structured results when it has an `outputSchema`. */
export interface ToolBinding {
  handler: ToolHandler;
  checkArguments: SchemaCheck;
  checkStructured: SchemaCheck | undefined;
}

export class Registry {
  readonly tools = new Catalog<ToolDefinition, ToolBinding>();
  readonly prompts = new Catalog<PromptDefinition, PromptHandler>();
  readonly resources = new Catalog<ResourceDefinition, ResourceReader>();
  /** Keyed by URI template; read through when no fixed resource has the URI. */
  readonly resourceTemplates = new Catalog<ResourceTemplateDefinition, ResourceTemplateBinding>();
}
