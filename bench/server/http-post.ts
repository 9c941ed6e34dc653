/**
 * One modern-era JSON-RPC request POSTed to a loopback MCP endpoint
 * (`http://127.0.0.1:PORT/mcp`), with the headers 2026-07-28 requires; every
 * SSE data field of the response (or its JSON body, one line) goes to
 * `onLine`, and `onEnd` runs when the response ends. `localAddress` picks
 * the connection's source address (127.0.0.2, …: each has its own ephemeral ports).
 */
import { request, type Agent, type ClientRequest } from 'node:http';
import { MODERN_VERSION } from '../../src/protocol/versions.ts';
import { lineSplitter } from './line-counter.ts';

export function postMcp(
  port: number,
  agent: Agent,
  id: string,
  method: string,
  params: object,
  onLine: (line: string) => void,
  onEnd?: () => void,
  localAddress?: string,
): ClientRequest {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
  const name = (params as { name?: unknown }).name;
  const req = request({
    host: '127.0.0.1',
    port,
    path: '/mcp',
    method: 'POST',
    agent,
    ...(localAddress ? { localAddress } : {}),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      'content-length': Buffer.byteLength(body),
    },
  }, (res) => {
    res.setEncoding('utf8');
    const feed = lineSplitter((line) => onLine(line.startsWith('data:') ? line.slice(5) : line));
    res.on('data', feed);
    res.on('end', () => {
      feed('\n');
      onEnd?.();
    });
  });
  req.end(body);
  return req;
}
