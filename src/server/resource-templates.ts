/**
 * Resource templates (RFC 6570 level 1–3): `resources/templates/list`, and
 * `resources/read` of a URI no fixed resource has, read through the first
 * template (in uriTemplate order) that matches it. A missing resource is
 * -32002 in the legacy era (2025-11-25) and -32602 in the modern era
 * (2026-07-28, SEP-2164).
 */
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { checkCacheHint, type CacheHint } from './caching.ts';
import type { CompleteCallback } from './completions.ts';
import { InvalidUriTemplateError } from './definition-errors.ts';
import { ResourceNotFoundError } from './errors.ts';
import type { Registry, ResourceContents } from './registry.ts';
import type { InputRequiredResult } from './input-required.ts';
import { callHandler, type RequestContext } from './request-context.ts';
import { UriTemplate } from './uri-template.ts';

/** What `resources/templates/list` shows of a template, plus its caching hints and completions. */
export interface ResourceTemplateDefinition {
  /** A name for the resources the template names. */
  name: string;
  /** A human-readable name for user interfaces. */
  title?: string;
  /** What the resources the template names hold. */
  description?: string;
  /** The MIME type of every resource the template names, when they share one. */
  mimeType?: string;
  /** Audience, priority and last modification, as `resources/templates/list` shows them. */
  annotations?: JsonObject;
  /** The `resources/read` caching hints (modern era) of URIs read through this template; not listed. */
  caching?: Partial<CacheHint>;
  /** Suggests values for the named variables (`completion/complete` with `ref/resource`); not listed. */
  complete?: Readonly<Record<string, CompleteCallback>>;
}

/**
 * Reads a URI that matched a template; `variables` holds the template's
 * variables, percent-decoded (a query variable the URI left out is absent).
 */
export type ResourceTemplateReader = (
  uri: string,
  variables: Readonly<Record<string, string>>,
  context: RequestContext,
) => ResourceContents[] | InputRequiredResult | Promise<ResourceContents[] | InputRequiredResult>;

/** A registered template: the parsed template and its reader. */
export interface ResourceTemplateBinding {
  template: UriTemplate;
  read: ResourceTemplateReader;
}

/** Parses and checks a template definition; throws InvalidUriTemplateError or InvalidCachingError, registering nothing. */
export function bindResourceTemplate(uriTemplate: string, definition: ResourceTemplateDefinition, read: ResourceTemplateReader): ResourceTemplateBinding {
  const template = new UriTemplate(uriTemplate);
  checkCacheHint(definition.caching, `resource template ${uriTemplate}: caching`);
  for (const [name, callback] of Object.entries(definition.complete ?? {})) {
    if (!template.variables.includes(name)) throw new InvalidUriTemplateError(uriTemplate, `complete names ${name}, which is not one of its variables`);
    if (typeof callback !== 'function') throw new InvalidUriTemplateError(uriTemplate, `complete.${name} is not a function`);
  }
  return { template, read };
}

/** One page of `resources/templates/list`, sorted by uriTemplate, without the server-side `caching` and `complete`. */
export function listResourceTemplates(registry: Registry, params: JsonObject | undefined, pageSize: number): JsonObject {
  const { items, nextCursor } = registry.resourceTemplates.page(params?.cursor, pageSize);
  const resourceTemplates = items.map(({ key, definition }) => {
    const { caching: _hints, complete: _complete, ...wire } = definition;
    return { uriTemplate: key, ...wire };
  });
  return nextCursor === undefined ? { resourceTemplates } : { resourceTemplates, nextCursor };
}

interface TemplateMatch {
  definition: ResourceTemplateDefinition;
  binding: ResourceTemplateBinding;
  variables: Record<string, string>;
}

function matchTemplate(registry: Registry, uri: string): TemplateMatch | undefined {
  for (const { definition, handler } of registry.resourceTemplates.all()) {
    const variables = handler.template.match(uri);
    if (variables) return { definition, binding: handler, variables };
  }
  return undefined;
}

/** The contents of `uri`: its fixed resource, else the first template matching it; else ResourceNotFoundError for the era. */
export async function readResource(registry: Registry, uri: string, context: RequestContext): Promise<JsonObject> {
  const entry = registry.resources.get(uri);
  const match = entry ? undefined : matchTemplate(registry, uri);
  if (!entry && !match) throw new ResourceNotFoundError(uri, context.era);
  try {
    return { contents: await callHandler(context, (call) => (entry ? entry.handler(uri, call) : match!.binding.read(uri, match!.variables, call))) };
  } catch (error) {
    // A reader may find that a matching URI names nothing after all: the era decides the code, not the reader.
    if (error instanceof ResourceNotFoundError) throw new ResourceNotFoundError(error.data.uri, context.era);
    throw error;
  }
}

/** The caching hints a resource or the template it is read through gives its own `resources/read`. */
export function readCaching(registry: Registry, uri: string): Partial<CacheHint> | undefined {
  const entry = registry.resources.get(uri);
  return entry ? entry.definition.caching : matchTemplate(registry, uri)?.definition.caching;
}
