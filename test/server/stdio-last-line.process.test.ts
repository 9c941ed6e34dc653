/**
 * A last line without a newline when the client closes its input: the spec
 * delimits stdio messages by newlines, and the end of input delimits the last
 * one, so it is read like any other line (as our client transport reads a
 * server's): a request is answered, a truncated frame is refused with
 * -32700. And what was answered when input ended is written before the
 * connection reports closed (the fixture exits then). Scripted peer (the official client always ends its lines).
 */
import { once } from 'node:events';
import { afterEach, expect, it } from 'vitest';
import { ErrorCode } from '../../src/protocol/jsonrpc.ts';
import { RawStdioPeer } from './raw-stdio-peer.ts';

let peer: RawStdioPeer | undefined;
afterEach(() => peer?.kill());

/** Writes `text` as the input's last bytes, with no newline after it, and waits until the server's output ended. */
async function endInputWith(p: RawStdioPeer, text: string): Promise<void> {
  const outputEnded = once(p.child.stdout, 'end');
  p.child.stdin.end(text);
  await outputEnded;
}

it('writes the answer to a request that arrives with the end of input before the connection reports closed', async () => {
  const p = (peer = new RawStdioPeer());
  await endInputWith(p, `${JSON.stringify({ jsonrpc: '2.0', id: 'ended', method: 'ping' })}\n`);
  expect(p.received).toEqual([{ jsonrpc: '2.0', id: 'ended', result: {} }]);
});

it('answers a request on the last line of input, sent without a trailing newline', async () => {
  const p = (peer = new RawStdioPeer());
  await endInputWith(p, JSON.stringify({ jsonrpc: '2.0', id: 'last', method: 'ping' }));
  expect(p.received).toEqual([{ jsonrpc: '2.0', id: 'last', result: {} }]);
});

it('refuses a truncated last line with -32700, so the frame is not lost silently', async () => {
  const p = (peer = new RawStdioPeer());
  await endInputWith(p, '{"jsonrpc":"2.0","id":7,"method":"pi');
  expect(p.received.map((message) => message.error?.code)).toEqual([ErrorCode.ParseError]);
});
