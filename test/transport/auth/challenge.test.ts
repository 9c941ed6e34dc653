/** Reading WWW-Authenticate Bearer challenges (RFC 6750 §3, RFC 9728 §5.1). */
import { describe, expect, it } from 'vitest';
import { readBearerChallenge } from '../../../src/transport/auth/challenge.ts';

describe('readBearerChallenge', () => {
  it('reads quoted parameters', () => {
    expect(readBearerChallenge('Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/.well-known/oauth-protected-resource"')).toEqual({
      error: 'insufficient_scope',
      scope: 'a b',
      resourceMetadata: 'https://x/.well-known/oauth-protected-resource',
    });
  });

  it('reads token values and escapes, and is case-insensitive about the scheme and names', () => {
    expect(readBearerChallenge('bearer Error=invalid_token, Scope="say \\"hi\\""')).toEqual({ error: 'invalid_token', scope: 'say "hi"' });
  });

  it('takes the Bearer challenge among others, and stops at the next scheme', () => {
    expect(readBearerChallenge('Basic realm="x", Bearer scope="s", DPoP algs="ES256" error="nope"')).toEqual({ scope: 's' });
  });

  it('a bare Bearer has no parameters; no header or another scheme is no Bearer challenge', () => {
    expect(readBearerChallenge('Bearer')).toEqual({});
    expect(readBearerChallenge(null)).toBeUndefined();
    expect(readBearerChallenge('Basic realm="x"')).toBeUndefined();
  });
});
