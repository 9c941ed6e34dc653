/**
 * Tool arguments validated against the whole `inputSchema` as JSON Schema
 * 2020-12: a misfit is a tool error (`isError: true`) naming the path and
 * the problem, in both eras, as the official client 2.x sees it over HTTP;
 * an unknown tool or arguments that are not an object stay JSON-RPC errors;
 * a schema that does not compile is refused at defineTool.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer, InvalidToolSchemaError, type McpServer } from '../../src/server/index.ts';
import { ErrorCode } from '../../src/protocol/jsonrpc.ts';
import { closeAllPeers, connectHttp, type Era } from './official-peers.ts';

/** $ref, oneOf, format and additionalProperties: false in one schema. */
const BOOKING = {
  type: 'object',
  $defs: {
    when: { type: 'string', format: 'date-time' },
    email: { type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'], additionalProperties: false },
    phone: { type: 'object', properties: { phone: { type: 'string', pattern: '^[0-9+ ]+$' } }, required: ['phone'], additionalProperties: false },
  },
  properties: {
    at: { $ref: '#/$defs/when' },
    contact: { oneOf: [{ $ref: '#/$defs/email' }, { $ref: '#/$defs/phone' }] },
  },
  required: ['at', 'contact'],
  additionalProperties: false,
};

/** The conformance suite's json-schema-2020-12 tool schema: $anchor in $defs, allOf/anyOf, if/then/else. */
const CONFORMANCE_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

let server: McpServer;
let url: string;
let calls: Record<string, unknown>[];

beforeEach(async () => {
  calls = [];
  server = createServer({ name: 'validating', version: '1.0.0' });
  const record = (args: Record<string, unknown>) => {
    calls.push(args);
    return { content: [{ type: 'text', text: 'booked' }] };
  };
  server.defineTool('book', { description: 'Books a call', inputSchema: BOOKING }, record);
  server.defineTool('json_schema_2020_12_tool', { description: 'Conformance schema', inputSchema: CONFORMANCE_2020_12 }, record);
  url = (await server.listenHttp({ port: 0 })).url;
});

afterEach(async () => {
  await closeAllPeers();
  await server.close();
});

const textOf = (result: unknown): string => (result as { content: { text: string }[] }).content[0]!.text;

describe.each<Era>(['modern', 'legacy'])('arguments checked as JSON Schema 2020-12, %s era, official client over HTTP', (era) => {
  it('runs the handler when the arguments fit, through $ref and oneOf', async () => {
    const client = await connectHttp(era, url);
    const args = { at: '2026-07-28T09:30:00Z', contact: { phone: '+44 20 7946 0000' } };
    const result = await client.callTool({ name: 'book', arguments: args });
    expect(result.isError ?? false).toBe(false);
    expect(textOf(result)).toBe('booked');
    expect(calls).toEqual([args]);
  });

  it.each([
    ['a format it breaks', { at: 'tomorrow', contact: { phone: '1' } }, /arguments\/at must match format "date-time"/],
    ['an email that is not one, inside a oneOf branch', { at: '2026-07-28T09:30:00Z', contact: { email: 'nobody' } }, /arguments\/contact\/email must match format "email"/],
    ['two oneOf branches at once', { at: '2026-07-28T09:30:00Z', contact: { email: 'a@example.com', phone: '1' } }, /arguments\/contact must match exactly one schema in oneOf/],
    ['a property the schema does not allow', { at: '2026-07-28T09:30:00Z', contact: { phone: '1' }, note: 'hi' }, /arguments has unexpected property "note"/],
    ['a required property missing', { contact: { phone: '1' } }, /arguments is missing required property "at"/],
  ])('answers %s with a tool error naming the path and the problem, without running the handler', async (_case, args, message) => {
    const client = await connectHttp(era, url);
    const result = await client.callTool({ name: 'book', arguments: args });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Invalid arguments for tool book: /);
    expect(textOf(result)).toMatch(message);
    expect(calls).toEqual([]);
  });

  it('validates the conformance suite\'s 2020-12 schema: $anchor, allOf/anyOf and if/then/else', async () => {
    const client = await connectHttp(era, url);
    const fits = await client.callTool({ name: 'json_schema_2020_12_tool', arguments: { name: 'a', contactMethod: 'phone', phone: '1' } });
    expect(fits.isError ?? false).toBe(false);
    const misfit = await client.callTool({ name: 'json_schema_2020_12_tool', arguments: { contactMethod: 'phone', email: 'a@b.c', address: { street: 3 } } });
    expect(misfit.isError).toBe(true);
    expect(textOf(misfit)).toMatch(/arguments\/address\/street must be string/);
    expect(textOf(misfit)).toMatch(/arguments is missing required property "phone"/);
    expect(calls).toHaveLength(1);
  });

  it('keeps an unknown tool and arguments that are not an object JSON-RPC errors', async () => {
    const client = await connectHttp(era, url);
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    await expect(client.request({ method: 'tools/call', params: { name: 'book', arguments: ['not', 'an', 'object'] } } as never)).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
    expect(calls).toEqual([]);
  });
});

describe('defineTool', () => {
  it.each([
    ['a type that does not exist', { type: 'object', properties: { a: { type: 'nope' } } }, /properties\/a\/type must be equal to one of the allowed values/],
    ['a $ref that resolves to nothing', { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }, /#\/\$defs\/missing/],
    ['a keyword of the wrong type', { type: 'object', required: 'a' }, /required must be array/],
    ['a dialect it does not know', { $schema: 'http://json-schema.org/draft-03/schema#', type: 'object' }, /not a supported dialect/],
  ])('refuses a schema with %s with a typed error and registers nothing', async (_case, inputSchema, problem) => {
    let refusal: unknown;
    try {
      server.defineTool('broken', { description: 'Broken', inputSchema }, () => ({ content: [] }));
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(InvalidToolSchemaError);
    expect(refusal).toMatchObject({ code: 'invalid_tool_schema', tool: 'broken', message: expect.stringMatching(problem) });
    const client = await connectHttp('modern', url);
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('broken');
    await expect(client.callTool({ name: 'broken', arguments: {} })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  });

  it('keeps the tool it replaces when the replacement does not compile', async () => {
    expect(() => server.defineTool('book', { description: 'Broken', inputSchema: { type: 'nope' } }, () => ({ content: [] }))).toThrow(InvalidToolSchemaError);
    const client = await connectHttp('modern', url);
    const result = await client.callTool({ name: 'book', arguments: { at: '2026-07-28T09:30:00Z', contact: { phone: '1' } } });
    expect(textOf(result)).toBe('booked');
  });

  it('takes draft-07 when the schema names it, and redefines a tool with an $id', async () => {
    const draft07 = { $schema: 'http://json-schema.org/draft-07/schema#', $id: 'urn:test:count', type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    server.defineTool('count', { description: 'Counts', inputSchema: draft07 }, () => ({ content: [{ type: 'text', text: 'counted' }] }));
    server.defineTool('count', { description: 'Counts', inputSchema: { ...draft07 } }, () => ({ content: [{ type: 'text', text: 'counted again' }] }));
    const client = await connectHttp('modern', url);
    expect(textOf(await client.callTool({ name: 'count', arguments: { n: 2 } }))).toBe('counted again');
    const misfit = await client.callTool({ name: 'count', arguments: { n: 2.5 } });
    expect(misfit.isError).toBe(true);
    expect(textOf(misfit)).toMatch(/arguments\/n must be integer/);
  });
});
