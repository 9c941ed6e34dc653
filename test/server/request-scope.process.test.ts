/**
 * Request-scoped messages (progress, log) reach only the requester, and log
 * messages only at the level it asked for: modern via the request's `_meta`
 * logLevel, legacy via the session's logging/setLevel.
 */
import { describe, expect, it } from 'vitest';
import { MetaKey } from '../../src/protocol/versions.ts';
import { perTestPeers } from './per-test-peers.ts';
import { modernMeta } from './raw-stdio-peer.ts';

const make = perTestPeers();

describe('log messages over stdio (modern)', () => {
  it('sends a log message only when the request asked for a level it meets', async () => {
    const p = make.peer();
    p.request(1, 'tools/call', { name: 'log', arguments: { text: 'unasked' } });
    p.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { _meta: modernMeta({ [MetaKey.logLevel]: 'error' }), name: 'log', arguments: { level: 'info', text: 'too low' } } });
    p.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { _meta: modernMeta({ [MetaKey.logLevel]: 'info' }), name: 'log', arguments: { level: 'info', text: 'wanted' } } });
    await Promise.all([p.response(1), p.response(2), p.response(3)]);
    const logs = p.received.filter((message) => message.method === 'notifications/message');
    expect(logs.map((message) => message.params)).toEqual([{ level: 'info', data: 'wanted' }]);
  });
});

describe('request scope over HTTP', () => {
  const headers = (method: string, name?: string): Record<string, string> => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(name ? { 'mcp-name': name } : {}),
  });

  it('streams progress and log on the request\'s own SSE response, ending with the result', async () => {
    const server = make.server();
    const { url } = await server.listenHttp({ port: 0 });
    const body = { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { _meta: modernMeta({ progressToken: 'p', [MetaKey.logLevel]: 'debug' }), name: 'progress', arguments: { steps: 2 } } };
    const response = await fetch(url, { method: 'POST', headers: headers('tools/call', 'progress'), body: JSON.stringify(body) });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = (await response.text()).split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)));
    expect(events.map((event) => event.method ?? `result:${event.id}`)).toEqual(['notifications/progress', 'notifications/progress', 'result:5']);
    expect(events[0].params).toEqual({ progressToken: 'p', progress: 1, total: 2 });
  });

  it('answers with plain JSON when nothing is sent before the result', async () => {
    const server = make.server();
    const { url } = await server.listenHttp({ port: 0 });
    const body = { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { _meta: modernMeta(), name: 'progress', arguments: { steps: 2 } } };
    const response = await fetch(url, { method: 'POST', headers: headers('tools/call', 'progress'), body: JSON.stringify(body) });
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 6, result: { resultType: 'complete', content: [{ type: 'text', text: 'done 2' }] } });
  });

  it('filters legacy log messages by each session\'s own level', async () => {
    const server = make.server();
    const { url } = await server.listenHttp({ port: 0 });
    const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const open = async () => {
      const init = await fetch(url, { method: 'POST', headers: json, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }) });
      const session = { ...json, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
      await fetch(url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
      return session;
    };
    const quiet = await open();
    const chatty = await open();
    await fetch(url, { method: 'POST', headers: quiet, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'logging/setLevel', params: { level: 'error' } }) });
    const call = (session: Record<string, string>) =>
      fetch(url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'log', arguments: { level: 'info', text: 'hello' } } }) }).then((r) => r.text());
    const [quietBody, chattyBody] = await Promise.all([call(quiet), call(chatty)]);
    expect(quietBody).not.toContain('notifications/message');
    expect(chattyBody).toContain('"method":"notifications/message"');
  });
});
