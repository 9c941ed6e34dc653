/**
 * The modern era's `requestState`: what one attempt of a handler learnt
 * (the client's answers so far and the round number), sealed with AES-256-GCM
 * under the server's key so the client can neither read nor alter it, bound to
 * the request it was minted for (method and tool, prompt or resource) and to
 * an expiry. The client only echoes it; a state that fails any check is
 * refused with InvalidRequestStateError (-32602).
 *
 * Wire form: base64url of `iv (12 bytes) | tag (16 bytes) | ciphertext`. Nodes
 * that share the key (ServerOptions.requestStateKey) accept each other's states,
 * so a retry may land on any of them.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { InvalidRequestStateError } from './errors.ts';
import type { JsonValue } from '../protocol/mcp-types.ts';
import type { InputRequests } from './input-required.ts';
import { isJsonObject } from './json-values.ts';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Additional data: a state sealed for another purpose or format version never opens as this one. */
const AAD = Buffer.from('mcp-actors/requestState/v1');

/** What a sealed state carries. */
export interface RequestStateContents {
  /** The request it belongs to: `method` and the tool or prompt name (or resource URI). */
  target: string;
  /** Completed rounds; the next attempt is round `round`. */
  round: number;
  /** The client's answers so far, by ask key. */
  answers: Record<string, JsonObject>;
  /** Milliseconds since the epoch after which the state is refused. */
  expiresAt: number;
  /** The handler's own state (`context.keep`, or the `state` of a returned `inputRequired`). */
  state?: JsonValue;
  /** The requests the handler returned, and the answers to them given so far (the retry answers the rest). */
  step?: { requests: InputRequests; answers: Record<string, JsonObject> };
}

/** A key for `requestStateKey`: 32 random bytes. */
export const newRequestStateKey = (): Buffer => randomBytes(32);

/** Seals and opens request states under one 32-byte key. */
export class RequestStateSealer {
  private readonly key: Buffer;

  constructor(key: Uint8Array, private readonly now: () => number = Date.now) {
    if (key.byteLength !== 32) throw new RangeError(`requestStateKey must be 32 bytes, got ${key.byteLength}`);
    this.key = Buffer.from(key);
  }

  seal(contents: RequestStateContents): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(AAD);
    const body = Buffer.concat([cipher.update(JSON.stringify(contents), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The contents of a state minted for `target`; throws InvalidRequestStateError otherwise. */
  open(state: string, target: string): RequestStateContents {
    const contents = this.decrypt(state);
    if (contents.target !== target) throw new InvalidRequestStateError('other_request');
    if (this.now() > contents.expiresAt) throw new InvalidRequestStateError('expired');
    return contents;
  }

  private decrypt(state: string): RequestStateContents {
    // base64url decoding skips foreign characters, so a round trip proves the text was only ours.
    const raw = Buffer.from(state, 'base64url');
    if (raw.length <= IV_BYTES + TAG_BYTES || raw.toString('base64url') !== state) throw new InvalidRequestStateError('tampered');
    let text: string;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(AAD);
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      text = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new InvalidRequestStateError('tampered');
    }
    const value: unknown = JSON.parse(text);
    // Authenticated, so only a server with our key wrote it; still check the shape before trusting it.
    if (
      !isJsonObject(value) || typeof value.target !== 'string' || typeof value.round !== 'number' ||
      typeof value.expiresAt !== 'number' || !isJsonObject(value.answers) ||
      (value.step !== undefined && !(isJsonObject(value.step) && isJsonObject(value.step.requests) && isJsonObject(value.step.answers)))
    ) {
      throw new InvalidRequestStateError('tampered');
    }
    return value as unknown as RequestStateContents;
  }
}
