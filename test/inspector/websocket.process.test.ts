/**
 * The inspector relay's WebSocket server side (RFC 6455) against undici's
 * WebSocket client (the WHATWG client Node itself ships), over loopback: the
 * handshake, short and long text messages, the closing handshake. What no
 * conformant client sends on cue (a ping on demand, an unmasked frame, an
 * oversized frame, a reserved bit) is written by hand on a raw socket.
 */
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { WebSocket } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { acceptValue, checkHandshake, MAX_INCOMING_FRAME_BYTES, refuseUpgrade, WebSocketConnection } from '../../src/inspector/websocket.ts';

let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  if (server) await new Promise((resolve) => server!.close(resolve));
  server = undefined;
});

/** A server that accepts every valid handshake and greets with `greeting`. */
async function serve(greeting: string[]): Promise<{ port: number; closed: Promise<void>[] }> {
  const closed: Promise<void>[] = [];
  server = createServer((_request, response) => response.writeHead(404).end());
  server.on('upgrade', (request, socket, head: Buffer) => {
    const handshake = checkHandshake(request);
    if (!handshake.ok) return refuseUpgrade(socket, handshake.status, handshake.reason);
    const connection = new WebSocketConnection(socket, handshake.key, head);
    closed.push(new Promise((resolve) => connection.onClose(resolve)));
    for (const text of greeting) connection.send(text);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, closed };
}

/** A client frame: final, masked with a fixed key, with the given first byte and payload. */
function clientFrame(firstByte: number, payload: Buffer, options: { masked?: boolean; announcedLength?: number } = {}): Buffer {
  const masked = options.masked ?? true;
  const length = options.announcedLength ?? payload.length;
  const header = length < 126 ? Buffer.from([firstByte, length]) : Buffer.concat([Buffer.from([firstByte, 127]), Buffer.alloc(8)]);
  if (length >= 126) header.writeBigUInt64BE(BigInt(length), 2);
  if (masked) header[1]! |= 0x80;
  const mask = Buffer.from([1, 2, 3, 4]);
  return Buffer.concat([header, ...(masked ? [mask, Buffer.from(payload.map((byte, index) => byte ^ mask[index % 4]!))] : [payload])]);
}

/** A raw client after a handshake: the bytes the server sent after its 101 response. */
async function rawClient(port: number): Promise<{ socket: Socket; received: () => Buffer; until: (bytes: number) => Promise<Buffer>; ended: Promise<void> }> {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  let all = Buffer.alloc(0);
  const waiters = new Set<() => void>();
  socket.on('data', (chunk: Buffer) => {
    all = Buffer.concat([all, chunk]);
    for (const waiter of [...waiters]) waiter();
  });
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n');
  const body = () => {
    const end = all.indexOf('\r\n\r\n');
    return end < 0 ? undefined : all.subarray(end + 4);
  };
  const until = (bytes: number) =>
    new Promise<Buffer>((resolve) => {
      const waiter = () => {
        const rest = body();
        if (rest && rest.length >= bytes) {
          waiters.delete(waiter);
          resolve(rest);
        }
      };
      waiters.add(waiter);
      waiter();
    });
  await until(0);
  // RFC 6455 section 1.3's own example key and accept value.
  expect(all.toString('latin1')).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n[^]*sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=\r\n/);
  return { socket, received: () => body() ?? Buffer.alloc(0), until, ended };
}

describe('inspector WebSocket server side', () => {
  it('computes the accept value of RFC 6455 section 1.3', () => {
    expect(acceptValue('dGhlIHNhbXBsZSBub25jZQ==')).toBe('s3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
  });

  it('a WHATWG client receives short and long text messages, then closes cleanly', async () => {
    const long = 'x'.repeat(70_000); // Past 65535 bytes: the 64-bit length form.
    const { port, closed } = await serve(['hello', 'y'.repeat(300), long]);
    const client = new WebSocket(`ws://127.0.0.1:${port}/`);
    const messages: string[] = [];
    await new Promise<void>((resolve, reject) => {
      client.addEventListener('message', (event) => {
        messages.push(String(event.data));
        if (messages.length === 3) resolve();
      });
      client.addEventListener('error', () => reject(new Error('the client failed')));
    });
    expect(messages).toEqual(['hello', 'y'.repeat(300), long]);
    const close = new Promise<{ code: number; wasClean: boolean }>((resolve) => client.addEventListener('close', (event) => resolve({ code: event.code, wasClean: event.wasClean })));
    client.close(1000);
    expect(await close).toEqual({ code: 1000, wasClean: true });
    await closed[0];
  });

  it('answers a ping with a pong carrying the same payload', async () => {
    const { port } = await serve([]);
    const client = await rawClient(port);
    client.socket.write(clientFrame(0x89, Buffer.from('are you there')));
    const bytes = await client.until(2 + 'are you there'.length);
    expect(bytes[0]).toBe(0x8a);
    expect(bytes[1]).toBe('are you there'.length); // Unmasked, as a server's frames are.
    expect(bytes.subarray(2).toString()).toBe('are you there');
  });

  it.each([
    { what: 'an unmasked frame', frame: clientFrame(0x81, Buffer.from('hi'), { masked: false }), code: 1002 },
    { what: 'a reserved bit (no extension was negotiated)', frame: clientFrame(0xc1, Buffer.from('hi')), code: 1002 },
    { what: 'a frame over the size limit', frame: clientFrame(0x82, Buffer.alloc(0), { announcedLength: MAX_INCOMING_FRAME_BYTES + 1 }), code: 1009 },
    { what: 'a fragmented ping', frame: clientFrame(0x09, Buffer.from('p')), code: 1002 },
  ])('closes with $code on $what', async ({ frame, code }) => {
    const { port } = await serve([]);
    const client = await rawClient(port);
    client.socket.write(frame);
    await client.ended;
    const bytes = client.received();
    expect(bytes[0]).toBe(0x88);
    expect(bytes.readUInt16BE(2)).toBe(code);
  });

});
