/**
 * URL-mode elicitation's two 2025-11-25 companions, our client against our
 * server over the in-memory pair: a handler that throws
 * UrlElicitationRequiredError answers -32042 with its elicitations, which our
 * client rejects with as its own UrlElicitationRequiredError (an RpcError);
 * and `context.elicitationCompleteNotifier` sends
 * `notifications/elicitation/complete` to the request's session, during the
 * request or after it, only to a client that declared `elicitation.url`.
 * The modern era has neither notification nor error code of its own: there
 * the notifier does nothing, and the error still answers -32042.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type McpClient } from '../../src/client/client.ts';
import { RpcError, UrlElicitationRequiredError } from '../../src/protocol/errors.ts';
import type { JsonObject } from '../../src/protocol/jsonrpc.ts';
import { createServer, UndeclaredClientCapabilityError, UrlElicitationRequiredError as ServerUrlElicitationRequiredError, WireError, type McpServer } from '../../src/server/index.ts';
import { inMemoryTransport } from '../../src/transport/in-memory.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

class MalformedUrlElicitationError extends WireError {
  readonly code = 'malformed';
  readonly rpcCode = -32042;
  override readonly data = { elicitations: [{ mode: 'form', message: 'not a URL' }] };
}

const SIGN_IN = { message: 'Sign in to the calendar', url: 'https://calendar.example/authorize?state=s1', elicitationId: 'calendar-s1' };

/** A server whose `connect` tool needs a sign-in first, and whose `sign-in` tool hands out the completion notifier it made. */
function calendarServer() {
  const server = createServer({ name: 'calendar', version: '1.0.0' });
  const notifiers: (() => void)[] = [];
  const made: unknown[] = [];
  server.defineTool('connect', { description: 'Connects the calendar', inputSchema: { type: 'object' } }, () => {
    throw new ServerUrlElicitationRequiredError([SIGN_IN]);
  });
  // A -32042 whose data names no URL elicitation (a server's mistake): the client keeps its words as an RpcError.
  server.defineTool('malformed', { description: 'Answers -32042 without URL elicitations', inputSchema: { type: 'object' } }, () => {
    throw new MalformedUrlElicitationError();
  });
  server.defineTool('sign-in', { description: 'Starts a sign-in', inputSchema: { type: 'object' } }, (_args, context) => {
    try {
      notifiers.push(context.elicitationCompleteNotifier(SIGN_IN.elicitationId));
      made.push('notifier');
    } catch (error) {
      made.push(error);
    }
    return { content: [{ type: 'text', text: 'open the link' }] };
  });
  cleanups.push(() => server.close());
  return { server, notifiers, made };
}

async function connect(server: McpServer, era: 'legacy' | 'modern', declaresUrl: boolean): Promise<{ client: McpClient; completions: JsonObject[] }> {
  const client = createClient({ transport: inMemoryTransport((end) => server.serveStdio(end)), era, reconnect: false });
  cleanups.push(() => client.close());
  client.onRequest('elicitation/create', () => ({ action: 'accept' }), { capability: declaresUrl ? { form: {}, url: {} } : { form: {} } });
  const completions: JsonObject[] = [];
  client.onNotification('notifications/elicitation/complete', (params) => void completions.push(params));
  await client.connect();
  return { client, completions };
}

describe.each(['legacy', 'modern'] as const)('UrlElicitationRequiredError (%s)', (era) => {
  it('answers -32042 with its elicitations, which the client rejects with as UrlElicitationRequiredError', async () => {
    const { client } = await connect(calendarServer().server, era, true);
    const failure = await client.callTool('connect').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UrlElicitationRequiredError);
    expect(failure).toBeInstanceOf(RpcError);
    expect(failure).toMatchObject({
      name: 'UrlElicitationRequiredError',
      rpcCode: -32042,
      elicitations: [{ mode: 'url', ...SIGN_IN }],
      data: { elicitations: [{ mode: 'url', ...SIGN_IN }] },
    });
  });

  it('a -32042 without URL elicitations in its data stays an RpcError, its data as sent', async () => {
    const { client } = await connect(calendarServer().server, era, true);
    const failure = await client.callTool('malformed').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RpcError);
    expect(failure).not.toBeInstanceOf(UrlElicitationRequiredError);
    expect(failure).toMatchObject({ rpcCode: -32042, data: { elicitations: [{ mode: 'form', message: 'not a URL' }] } });
  });
});

describe('elicitationCompleteNotifier', () => {
  it('legacy: sends notifications/elicitation/complete to the session after the request ended, each time it is called', async () => {
    const { server, notifiers } = calendarServer();
    const { client, completions } = await connect(server, 'legacy', true);
    await client.callTool('sign-in');
    expect(completions).toEqual([]);
    notifiers[0]!();
    // A request after the notification: the session's messages arrive in order, so it is there by the answer.
    await client.listTools();
    expect(completions).toEqual([{ elicitationId: SIGN_IN.elicitationId }]);
  });

  it('legacy: a client that did not declare elicitation.url gets nothing, and the handler an UndeclaredClientCapabilityError', async () => {
    const { server, made } = calendarServer();
    const { client, completions } = await connect(server, 'legacy', false);
    await client.callTool('sign-in');
    expect(made).toEqual([expect.any(UndeclaredClientCapabilityError)]);
    expect(made[0]).toMatchObject({ method: 'notifications/elicitation/complete', required: { elicitation: { url: {} } } });
    await client.listTools();
    expect(completions).toEqual([]);
  });

  it('legacy: after the session ended, calling it sends nothing and throws nothing', async () => {
    const { server, notifiers } = calendarServer();
    const { client } = await connect(server, 'legacy', true);
    await client.callTool('sign-in');
    await client.close();
    expect(() => notifiers[0]!()).not.toThrow();
  });

  it('modern: there is no such notification; the notifier sends nothing', async () => {
    const { server, notifiers, made } = calendarServer();
    const { client, completions } = await connect(server, 'modern', true);
    await client.callTool('sign-in');
    expect(made).toEqual(['notifier']);
    notifiers[0]!();
    await client.listTools();
    expect(completions).toEqual([]);
  });
});

describe('the server error', () => {
  it('needs at least one elicitation, and fills in mode: url', () => {
    expect(() => new ServerUrlElicitationRequiredError([])).toThrow(TypeError);
    expect(new ServerUrlElicitationRequiredError([SIGN_IN]).toJson()).toEqual({
      code: -32042,
      message: 'This request needs the user to complete an elicitation at a URL first',
      data: { elicitations: [{ ...SIGN_IN, mode: 'url' }] },
    });
  });
});
