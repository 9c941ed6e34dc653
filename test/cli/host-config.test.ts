/**
 * readHostConfig on files as hosts and editors write them: a byte order mark
 * before the JSON, and servers the host has switched off.
 */
import { describe, expect, it } from 'vitest';
import { readHostConfig } from '../../src/cli/host-config.ts';
import { configFolder } from './config-folder.ts';

const { writeText: write } = configFolder('mcp-actors-host-config-');

describe('readHostConfig', () => {
  it('reads a file that starts with a UTF-8 byte order mark', () => {
    const file = write('bom.json', `\uFEFF${JSON.stringify({ mcpServers: { one: { command: 'one-server' } } })}`);
    expect(readHostConfig(file, [], {})).toEqual([{ name: 'one', target: { type: 'stdio', command: 'one-server', args: [] } }]);
  });

  it('leaves out servers marked disabled, unless one is named with --server', () => {
    const file = write('disabled.json', JSON.stringify({ mcpServers: { off: { command: 'off-server', disabled: true }, on: { command: 'on-server' } } }));
    expect(readHostConfig(file, [], {}).map((server) => server.name)).toEqual(['on']);
    expect(() => readHostConfig(file, ['off'], {})).toThrow(/server "off" is disabled in the config/);
  });

  it('a file whose servers are all disabled is a mistake that says so', () => {
    const file = write('all-off.json', JSON.stringify({ mcpServers: { off: { command: 'off-server', disabled: true } } }));
    expect(() => readHostConfig(file, [], {})).toThrow(/lists no servers that are not disabled/);
  });
});
