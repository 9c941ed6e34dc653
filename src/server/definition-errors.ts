/**
 * Local errors the server's own API throws at its caller (never sent on the
 * wire): options or definitions refused before anything is registered.
 */
import { McpActorsError } from '../protocol/errors.ts';

/** A caching hint that is not an integer `ttlMs` >= 0 or a `cacheScope` of `public` | `private`. */
export class InvalidCachingError extends McpActorsError {
  override readonly name = 'InvalidCachingError';
  readonly code = 'invalid_caching';
  /** Where the bad value sits, e.g. `caching.tools.ttlMs`. */
  readonly path: string;
  constructor(path: string, problem: string) {
    super(`${path} ${problem}`);
    this.path = path;
  }
}

/**
 * A tool whose `inputSchema` or `outputSchema` does not compile as JSON Schema; the tool is not registered (a
 * client that lists such an output schema reports it and leaves that tool's results unchecked).
 */
export class InvalidToolSchemaError extends McpActorsError {
  override readonly name = 'InvalidToolSchemaError';
  readonly code = 'invalid_tool_schema';
  constructor(
    /** The tool being defined. */ readonly tool: string,
    problem: string,
    options?: { cause?: unknown },
    /** Which of its schemas. */ readonly schema: 'inputSchema' | 'outputSchema' = 'inputSchema',
  ) {
    super(`tool ${tool}: ${schema} does not compile: ${problem}`, options);
  }
}

/**
 * A resource template that is not an RFC 6570 level 1–3 URI template, or
 * whose completions name a variable it does not have; nothing is registered.
 */
export class InvalidUriTemplateError extends McpActorsError {
  override readonly name = 'InvalidUriTemplateError';
  readonly code = 'invalid_uri_template';
  constructor(/** The template as given. */ readonly template: string, problem: string) {
    super(`resource template ${JSON.stringify(template)}: ${problem}`);
  }
}

/** A prompt definition the server cannot serve (an argument's `complete` that is no function); nothing is registered. */
export class InvalidPromptError extends McpActorsError {
  override readonly name = 'InvalidPromptError';
  readonly code = 'invalid_prompt';
  constructor(/** The prompt being defined. */ readonly prompt: string, problem: string) {
    super(`prompt ${prompt}: ${problem}`);
  }
}
