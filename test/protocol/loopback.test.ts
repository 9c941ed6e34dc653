/** The two loopback rules: any name or address of this machine, and OAuth's three plain-http hosts. */
import { describe, expect, it } from 'vitest';
import { isLoopbackHost, isOAuthLoopbackHostname } from '../../src/protocol/loopback.ts';

describe('isLoopbackHost', () => {
  it.each(['localhost', 'LocalHost', '127.0.0.1', '127.0.0.2', '127.255.255.254', '::1', '[::1]', '0:0:0:0:0:0:0:1', '[0::1]', '::ffff:127.0.0.1', '[::ffff:7f00:1]', '::FFFF:127.1.2.3'])(
    'accepts %s, a name of this machine only',
    (host) => expect(isLoopbackHost(host)).toBe(true),
  );

  it.each(['0.0.0.0', '::', '[::]', '10.0.0.1', '128.0.0.1', '::2', '::ffff:10.0.0.1', 'example.com', 'localhost.example.com', '127.0.0.1.nip.io', '', '[', '[::1', 'not an address'])(
    'refuses %s',
    (host) => expect(isLoopbackHost(host)).toBe(false),
  );
});

describe('isOAuthLoopbackHostname', () => {
  it.each(['localhost', '127.0.0.1', '[::1]'])('accepts %s, a loopback host of the OAuth redirect rules', (hostname) => {
    expect(isOAuthLoopbackHostname(hostname)).toBe(true);
  });

  // Loopback, yet not one of the three: OAuth wants https there.
  it.each(['127.0.0.2', '::1', '[0:0:0:0:0:0:0:1]', '[::ffff:7f00:1]', 'LOCALHOST', '0.0.0.0', 'example.com'])('refuses %s', (hostname) => {
    expect(isOAuthLoopbackHostname(hostname)).toBe(false);
  });

  it('agrees with how a URL spells its hostname, which is what it is given', () => {
    expect(['http://localhost:8080/', 'http://127.0.0.1/', 'http://[::1]:9000/', 'http://LOCALHOST/'].map((url) => isOAuthLoopbackHostname(new URL(url).hostname))).toEqual([true, true, true, true]);
    expect(isOAuthLoopbackHostname(new URL('http://[0:0::1]/').hostname)).toBe(true);
  });
});
