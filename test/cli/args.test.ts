import { describe, expect, it } from 'vitest';
import { DEFAULT_INSPECT_PORT, parseCommandLine, UsageError } from '../../src/cli/args.ts';

describe('parseCommandLine', () => {
  it('watch with no target is the demo, era auto, everything, human output', () => {
    expect(parseCommandLine(['watch'])).toEqual({
      command: 'watch',
      target: { type: 'demo' },
      era: 'auto',
      selection: { everything: true, tools: false, prompts: false, resources: false, uris: [] },
      json: false,
      inspect: undefined,
      maxAttempts: Infinity,
      once: false,
    });
  });

  it('--config FILE is a config target, --server narrows it; neither mixes with a URL or a command', () => {
    expect(parseCommandLine(['watch', '--config', 'mcp.json', '--server', 'a', '--server', 'b'])).toMatchObject({
      target: { type: 'config', file: 'mcp.json', servers: ['a', 'b'] },
    });
    expect(() => parseCommandLine(['watch', '--config', 'mcp.json', 'http://127.0.0.1:1/mcp'])).toThrow(/either --config or a URL/);
    expect(() => parseCommandLine(['watch', '--config', 'mcp.json', '--', 'node'])).toThrow(UsageError);
    expect(() => parseCommandLine(['watch', '--server', 'a'])).toThrow(/--server names a server of --config FILE/);
  });

  it('--max-attempts bounds the reconnects; --once asks for one report', () => {
    expect(parseCommandLine(['watch', '--max-attempts', '3', '--once'])).toMatchObject({ maxAttempts: 3, once: true });
    expect(parseCommandLine(['watch', '--max-attempts', '0'])).toMatchObject({ maxAttempts: 0 });
    expect(() => parseCommandLine(['watch', '--max-attempts', '-1'])).toThrow(UsageError);
    for (const bad of ['2.5', 'lots', '', '1e3']) {
      expect(() => parseCommandLine(['watch', '--max-attempts', bad])).toThrow(/--max-attempts must be a whole number/);
    }
  });

  it('a URL is an HTTP target', () => {
    const command = parseCommandLine(['watch', '--json', 'http://127.0.0.1:3000/mcp']);
    expect(command).toMatchObject({ target: { type: 'http', url: new URL('http://127.0.0.1:3000/mcp') }, json: true });
  });

  it('everything after -- is the stdio command, its own flags included', () => {
    expect(parseCommandLine(['watch', '--era', 'legacy', '--', 'node', 'server.js', '--json', '--port', '1'])).toMatchObject({
      target: { type: 'stdio', command: 'node', args: ['server.js', '--json', '--port', '1'] },
      era: 'legacy',
      json: false,
    });
  });

  it('selection flags narrow the interest; --uri repeats', () => {
    expect(parseCommandLine(['watch', '--tools', '--uri', 'a://1', '--uri', 'a://2'])).toMatchObject({
      selection: { everything: false, tools: true, prompts: false, resources: false, uris: ['a://1', 'a://2'] },
    });
  });

  it('--inspect uses the default port on loopback, --inspect-port and --inspect-host imply --inspect', () => {
    expect(parseCommandLine(['watch', '--inspect'])).toMatchObject({ inspect: { host: '127.0.0.1', port: DEFAULT_INSPECT_PORT } });
    expect(parseCommandLine(['watch', '--inspect-port', '9999'])).toMatchObject({ inspect: { host: '127.0.0.1', port: 9999 } });
    expect(parseCommandLine(['watch', '--inspect-port', '0'])).toMatchObject({ inspect: { port: 0 } });
    expect(parseCommandLine(['watch', '--inspect-host', '0.0.0.0'])).toMatchObject({ inspect: { host: '0.0.0.0', port: DEFAULT_INSPECT_PORT } });
    expect(parseCommandLine(['watch', '--inspect-host', '[::1]'])).toMatchObject({ inspect: { host: '::1' } });
  });

  it('help: no command, -h or --help', () => {
    expect(parseCommandLine([])).toEqual({ command: 'help' });
    expect(parseCommandLine(['watch', '-h'])).toEqual({ command: 'help' });
  });

  it.each([
    [['serve'], /unknown command "serve"/],
    [['watch', '--era', 'next'], /--era must be auto, legacy or modern/],
    [['watch', 'ws://host/mcp'], /only http: and https:/],
    [['watch', 'http://a/mcp', 'http://b/mcp'], /one URL at most/],
    [['watch', 'http://a/mcp', '--', 'node'], /either a URL or a command/],
    [['watch', '--'], /no command after --/],
    [['watch', '--inspect-port', '70000'], /--inspect-port must be a port number/],
    [['watch', '--inspect-port', '-1'], /--inspect-port/],
    [['watch', '--inspect-host', ''], /--inspect-host must be a host name or address/],
    [['watch', '--uri'], /--uri/],
    [['watch', '--uri', 'not a uri'], /--uri needs a resource URI/],
  ])('%j is a UsageError', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(UsageError);
    expect(() => parseCommandLine(argv)).toThrow(message);
  });
});
