/**
 * The names a config file gives its servers are text the operator may not
 * have written (a cloned project's .mcp.json): the timeline and the stderr
 * report show them escaped, as they show what a server chose.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killAllCliRuns, watchCli } from './cli-process.ts';

afterEach(killAllCliRuns);

describe('watch --config with hostile server names', () => {
  it('writes each name escaped on stdout and stderr: no control character reaches the terminal', async () => {
    const hostile = '\x1b]0;pwned\x07\x1b[2J\nforged';
    const file = join(mkdtempSync(join(tmpdir(), 'mcp-actors-names-')), 'servers.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { [hostile]: { command: '/nonexistent/one' }, plain: { command: '/nonexistent/two' } } }));
    const run = watchCli(['--config', file]);
    expect((await run.exited).code).toBe(1);
    expect(run.stdout).toContain('[\\u{1b}]0;pwned\\u{7}\\u{1b}[2J\\u{a}forged] ✗ error cannot watch /nonexistent/one');
    expect(run.stderr).toContain('mcp-actors: [\\u{1b}]0;pwned\\u{7}\\u{1b}[2J forged] cannot watch /nonexistent/one');
    for (const text of [run.stdout, run.stderr]) expect(text).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
  });
});
