/**
 * What the HTTP transport remembers of `x-mcp-header` (2026-07-28): per tool
 * name, the arguments its inputSchema marks, learned from every `tools/list`
 * response, so that a later `tools/call` can carry their `Mcp-Param-{Name}`
 * headers. A tool whose annotations break the spec's constraints is dropped
 * from the list result (the spec requires it) and reported, never remembered.
 *
 * A `tools/call` for a tool no `tools/list` has shown yet goes without the
 * headers, and a server that enforces them refuses it with HeaderMismatch
 * (-32020): list the tools first (the change cache and the listen resync do).
 */
import { McpActorsError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { checkMarkedParameters, valueAtPath, type MarkedParameter } from '../protocol/param-headers.ts';
import { paramHeaderValue } from './mcp-headers.ts';

/** A listed tool whose `x-mcp-header` annotations are invalid; it was left out of the `tools/list` result. */
export class InvalidToolHeaderAnnotationError extends McpActorsError {
  override readonly name = 'InvalidToolHeaderAnnotationError';
  readonly code = 'invalid_tool_header_annotation';
  constructor(/** The tool that was left out. */ readonly tool: string, /** What is wrong with its annotations. */ readonly reason: string) {
    super(`tool ${tool} was left out of tools/list: ${reason}`);
  }
}

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

export class ToolParamHeaders {
  /** Only tools with at least one marked argument; pages of one listing and later listings merge by name. */
  private readonly marked = new Map<string, readonly MarkedParameter[]>();

  /** Learns from one `tools/list` result; returns it without the rejected tools (the same object when none). */
  learn(result: JsonObject): { result: JsonObject; rejected: InvalidToolHeaderAnnotationError[] } {
    const { tools } = result;
    if (!Array.isArray(tools)) return { result, rejected: [] };
    const rejected: InvalidToolHeaderAnnotationError[] = [];
    const kept = tools.filter((tool: unknown) => {
      if (!isObject(tool) || typeof tool.name !== 'string') return true;
      const check = checkMarkedParameters(tool.inputSchema);
      if (check.ok && check.parameters.length > 0) this.marked.set(tool.name, check.parameters);
      else this.marked.delete(tool.name);
      if (check.ok) return true;
      rejected.push(new InvalidToolHeaderAnnotationError(tool.name, check.reason));
      return false;
    });
    return { result: rejected.length === 0 ? result : { ...result, tools: kept }, rejected };
  }

  /** The `Mcp-Param-{Name}` headers of a `tools/call`'s params; none for a tool not learned or an argument absent or null. */
  headersFor(params: JsonObject | undefined): Array<[name: string, value: string]> {
    const name = params?.name;
    const args = params?.arguments;
    const parameters = typeof name === 'string' ? this.marked.get(name) : undefined;
    if (parameters === undefined || !isObject(args)) return [];
    const headers: Array<[string, string]> = [];
    for (const { header, path } of parameters) {
      const value = paramHeaderValue(valueAtPath(args, path));
      if (value !== undefined) headers.push([`mcp-param-${header}`, value]);
    }
    return headers;
  }
}
