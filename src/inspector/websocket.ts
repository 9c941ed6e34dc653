/**
 * The server side of RFC 6455 WebSocket, as much as the inspector's Stately
 * relay needs and no more: the opening handshake, unmasked text frames out,
 * masked frames in (ping answered with pong, close answered with close, data
 * ignored: the relay only sends), a cap on an incoming frame's size, no
 * extensions and no subprotocols. Node 20 has a WebSocket client but no
 * server; this keeps the package's bin free of a runtime dependency.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/** RFC 6455 section 1.3: the GUID appended to the client's key. */
const HANDSHAKE_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/** The largest frame a client may send (the relay expects only control frames, at most 125 bytes). */
export const MAX_INCOMING_FRAME_BYTES = 64 * 1024;
/** How much unsent output one client may hold before it is dropped (as the inspector feed does). */
export const MAX_UNSENT_BYTES = 1024 * 1024;

/** The frame opcodes of RFC 6455 section 5.2. */
const Opcode = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;
const KNOWN_OPCODES = new Set<number>(Object.values(Opcode));

/** Close codes of RFC 6455 section 7.4.1 that this side sends. */
export const CloseCode = { normal: 1000, goingAway: 1001, protocolError: 1002, tooBig: 1009 } as const;

/** Why an upgrade request is not a WebSocket handshake this server accepts. */
export type HandshakeCheck = { ok: true; key: string } | { ok: false; status: 400 | 426; reason: string };

/** The `Sec-WebSocket-Accept` value for a client's `Sec-WebSocket-Key`. */
export const acceptValue = (key: string): string => createHash('sha1').update(key + HANDSHAKE_GUID).digest('base64');

/** Checks an upgrade request against RFC 6455 section 4.2.1 (method, headers, version 13, a 16-byte key). */
export function checkHandshake(request: IncomingMessage): HandshakeCheck {
  const key = request.headers['sec-websocket-key'];
  if (request.method !== 'GET') return { ok: false, status: 400, reason: 'a WebSocket handshake is a GET' };
  if (request.headers.upgrade?.toLowerCase() !== 'websocket') return { ok: false, status: 400, reason: 'Upgrade: websocket expected' };
  if (!/\bupgrade\b/i.test(request.headers.connection ?? '')) return { ok: false, status: 400, reason: 'Connection: Upgrade expected' };
  if (request.headers['sec-websocket-version'] !== '13') return { ok: false, status: 426, reason: 'WebSocket version 13 only' };
  if (typeof key !== 'string' || Buffer.from(key, 'base64').length !== 16) return { ok: false, status: 400, reason: 'Sec-WebSocket-Key must be 16 bytes in base64' };
  return { ok: true, key };
}

/** Answers an upgrade request with a plain HTTP error and closes the socket. */
export function refuseUpgrade(socket: Duplex, status: number, reason: string, headers: Record<string, string> = {}): void {
  const lines = [`HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Refused'}`, 'content-type: text/plain', 'connection: close', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${reason}\n`);
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 421: 'Misdirected Request', 426: 'Upgrade Required' };

/** Encodes one final, unmasked frame (servers never mask, RFC 6455 section 5.1). */
export function encodeFrame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const header = length < 126 ? Buffer.alloc(2) : length < 0x10000 ? Buffer.alloc(4) : Buffer.alloc(10);
  header[0] = 0x80 | opcode;
  if (length < 126) header[1] = length;
  else if (length < 0x10000) {
    header[1] = 126;
    header.writeUInt16BE(length, 2);
  } else {
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([header, payload]);
}

/** One decoded client frame, or why the bytes are not one this server accepts. */
export type DecodedFrame =
  | { type: 'frame'; opcode: number; payload: Buffer; size: number }
  | { type: 'incomplete' }
  | { type: 'invalid'; code: (typeof CloseCode)['protocolError' | 'tooBig']; reason: string };

/** Decodes the first frame in `bytes` (RFC 6455 section 5.2); `size` is how many bytes it took. */
export function decodeFrame(bytes: Buffer): DecodedFrame {
  if (bytes.length < 2) return { type: 'incomplete' };
  const fin = (bytes[0]! & 0x80) !== 0;
  const opcode = bytes[0]! & 0x0f;
  if ((bytes[0]! & 0x70) !== 0) return { type: 'invalid', code: CloseCode.protocolError, reason: 'no extensions were negotiated' };
  if (!KNOWN_OPCODES.has(opcode)) return { type: 'invalid', code: CloseCode.protocolError, reason: `unknown opcode ${opcode}` };
  if ((bytes[1]! & 0x80) === 0) return { type: 'invalid', code: CloseCode.protocolError, reason: 'client frames must be masked' };
  let length = bytes[1]! & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (bytes.length < 4) return { type: 'incomplete' };
    length = bytes.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (bytes.length < 10) return { type: 'incomplete' };
    const long = bytes.readBigUInt64BE(2);
    length = long > BigInt(MAX_INCOMING_FRAME_BYTES) ? MAX_INCOMING_FRAME_BYTES + 1 : Number(long);
    offset = 10;
  }
  if (opcode >= Opcode.close && (!fin || length > 125)) return { type: 'invalid', code: CloseCode.protocolError, reason: 'control frames are final and at most 125 bytes' };
  if (length > MAX_INCOMING_FRAME_BYTES) return { type: 'invalid', code: CloseCode.tooBig, reason: `frames are at most ${MAX_INCOMING_FRAME_BYTES} bytes` };
  if (bytes.length < offset + 4 + length) return { type: 'incomplete' };
  const mask = bytes.subarray(offset, offset + 4);
  const payload = Buffer.from(bytes.subarray(offset + 4, offset + 4 + length));
  for (let index = 0; index < payload.length; index++) payload[index]! ^= mask[index % 4]!;
  return { type: 'frame', opcode, payload, size: offset + 4 + length };
}

/** An accepted WebSocket: send text, close, learn when it ended. */
export class WebSocketConnection {
  #pending: Buffer = Buffer.alloc(0);
  #closing = false;

  /** Completes the handshake for a request `checkHandshake` accepted, on the socket of the server's `upgrade` event. */
  constructor(
    private readonly socket: Duplex,
    key: string,
    head: Buffer,
  ) {
    socket.write(['HTTP/1.1 101 Switching Protocols', 'upgrade: websocket', 'connection: Upgrade', `sec-websocket-accept: ${acceptValue(key)}`, '', ''].join('\r\n'));
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('error', () => socket.destroy());
    socket.on('end', () => socket.end());
    if (head.length > 0) this.#receive(head);
  }

  /** Whether the connection is still open for sending. */
  get open(): boolean {
    return !this.#closing && !this.socket.destroyed;
  }

  /** Sends one text message; a client holding more than MAX_UNSENT_BYTES unread is dropped. */
  send(text: string): void {
    if (!this.open) return;
    this.socket.write(encodeFrame(Opcode.text, Buffer.from(text, 'utf8')));
    if (this.socket.writableLength > MAX_UNSENT_BYTES) this.socket.destroy();
  }

  /** Starts the closing handshake with `code`, and ends the socket. */
  close(code: number = CloseCode.normal, reason = ''): void {
    if (!this.open) return;
    this.#closing = true;
    const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
    payload.writeUInt16BE(code, 0);
    payload.write(reason, 2);
    // The server closes the TCP connection first (RFC 6455 section 7.1.1), once the close frame is written.
    this.socket.end(encodeFrame(Opcode.close, payload), () => this.socket.destroy());
  }

  /** Calls `listener` once the underlying socket has closed, for whatever reason. */
  onClose(listener: () => void): void {
    this.socket.once('close', listener);
  }

  #receive(chunk: Buffer): void {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    for (;;) {
      const frame = decodeFrame(this.#pending);
      if (frame.type === 'incomplete') return;
      if (frame.type === 'invalid') return void this.close(frame.code, frame.reason);
      this.#pending = this.#pending.subarray(frame.size);
      if (frame.opcode === Opcode.ping && this.open) this.socket.write(encodeFrame(Opcode.pong, frame.payload));
      // Answer a close with the client's code (RFC 6455 section 5.5.1); data frames are ignored: the relay only sends.
      if (frame.opcode === Opcode.close) return void this.close(frame.payload.length >= 2 ? frame.payload.readUInt16BE(0) : CloseCode.normal);
    }
  }
}
