/**
 * A tool's structured result checked against its `outputSchema`: MCP says a
 * server MUST return structured content that conforms to a tool's output
 * schema, and a client SHOULD check it, so a caller never reads a shape the
 * tool did not promise. The schemas are those of the last `listTools()`; a
 * tool not listed yet is not checked (the official clients do the same).
 * The compiler is the server's, with its dialect rules (tool-schemas.ts),
 * imported on the first check, so a client that never meets an output
 * schema never loads ajv.
 */
import { InvalidResultError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { CallToolResult, Tool } from '../protocol/mcp-types.ts';
import type { SchemaCheck, ToolSchemaCompiler } from '../server/tool-schemas.ts';

export class ToolOutputChecks {
  /** Tool name → its output schema, from the last full tool list. */
  #schemas = new Map<string, JsonObject>();
  /** Tool name → its compiled check, or undefined for a schema that does not compile (reported once, then unchecked). */
  readonly #checks = new Map<string, SchemaCheck | undefined>();
  #compiler: Promise<ToolSchemaCompiler> | undefined;

  /** `report` hears a schema that cannot be compiled; the calls of that tool then go unchecked. */
  constructor(private readonly report: (error: Error) => void) {}

  /** The whole tool list, as `listTools()` returned it: it replaces what was known. */
  learn(tools: readonly Tool[]): void {
    this.#schemas = new Map(tools.flatMap((tool) => (tool.outputSchema === undefined ? [] : [[tool.name, tool.outputSchema] as const])));
    this.#checks.clear();
  }

  /** Throws InvalidResultError when a successful result of a tool with an output schema lacks conforming structured content. */
  async check(name: string, result: CallToolResult): Promise<void> {
    const schema = this.#schemas.get(name);
    if (schema === undefined || result.isError === true) return;
    if (result.structuredContent === undefined) {
      throw new InvalidResultError('tools/call', 'structuredContent', `structured content, as tool ${name} has an outputSchema`, undefined);
    }
    const problem = (await this.#checkOf(name, schema))?.(result.structuredContent);
    if (problem !== undefined) throw new InvalidResultError('tools/call', 'structuredContent', `a value its outputSchema allows (${problem})`, result.structuredContent);
  }

  async #checkOf(name: string, schema: JsonObject): Promise<SchemaCheck | undefined> {
    if (this.#checks.has(name)) return this.#checks.get(name);
    this.#compiler ??= import('../server/tool-schemas.ts').then((loaded) => new loaded.ToolSchemaCompiler());
    const compiler = await this.#compiler;
    // The list may have been learned again while the compiler loaded: check against the schema asked for.
    let check: SchemaCheck | undefined;
    try {
      check = compiler.compile(name, schema, 'structured content');
    } catch (error) {
      this.report(error as Error);
    }
    if (this.#schemas.get(name) === schema) this.#checks.set(name, check);
    return check;
  }
}
