/**
 * What `watch` does when it cannot watch: a bad URL, an unreachable URL, a
 * command that does not start, a command that exits at once, a config file
 * that cannot be read, and a server that speaks neither era. Each is one
 * line on stderr and a non-zero exit.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fixture, killAllCliRuns, watchCli } from './cli-process.ts';
import { fixtureBundle } from '../setup/fixture-bundle.ts';

afterEach(killAllCliRuns);

async function failure(args: string[]): Promise<{ code: number | null; line: string }> {
  const run = watchCli(args);
  const { code } = await run.exited;
  const lines = run.stderr.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  return { code, line: lines[0]! };
}

describe('watch errors', () => {
  it('a URL that is not http(s) is a usage error (exit 2)', async () => {
    const { code, line } = await failure(['ftp://example.com/mcp']);
    expect(code).toBe(2);
    expect(line).toMatch(/^mcp-actors: bad URL "ftp:\/\/example.com\/mcp"/);
  });

  it('text that is not a URL is a usage error that points at --', async () => {
    const { code, line } = await failure(['not a url']);
    expect(code).toBe(2);
    expect(line).toMatch(/bad URL "not a url" \(to run a command, put it after --\)/);
  });

  it('an unknown flag is a usage error', async () => {
    const { code, line } = await failure(['--colour']);
    expect(code).toBe(2);
    expect(line).toMatch(/^mcp-actors: .*--colour/);
  });

  it('an --era other than auto, legacy or modern is a usage error', async () => {
    const { code, line } = await failure(['--era', 'future', 'http://127.0.0.1:9/mcp']);
    expect(code).toBe(2);
    expect(line).toMatch(/--era must be auto, legacy or modern/);
  });

  it('a URL nobody listens on exits 1 with --max-attempts 0 (by default the watcher waits for it)', async () => {
    const { code, line } = await failure(['--json', '--max-attempts', '0', 'http://127.0.0.1:9/mcp']);
    expect(code).toBe(1);
    expect(line).toMatch(/^mcp-actors: cannot watch http:\/\/127.0.0.1:9\/mcp: /);
  });

  it('a command that does not start exits 1', async () => {
    const { code, line } = await failure(['--json', '--', '/nonexistent/mcp-server', '--flag']);
    expect(code).toBe(1);
    expect(line).toMatch(/^mcp-actors: cannot watch \/nonexistent\/mcp-server --flag: .*ENOENT/);
  });

  it('a command that exits before answering exits 1', async () => {
    const { code, line } = await failure(['--json', '--', process.execPath, '-e', 'process.exit(3)']);
    expect(code).toBe(1);
    expect(line).toMatch(/^mcp-actors: cannot watch .*: /);
  });

  it('a config file that cannot be read is one line naming the file and the system error once', async () => {
    const { code, line } = await failure(['--config', '/nonexistent/mcp.json']);
    expect(code).toBe(1);
    expect(line).toBe('mcp-actors: cannot read config /nonexistent/mcp.json: ENOENT /nonexistent/mcp.json');
  });

  it('a server that speaks neither era exits 1', async () => {
    const { code, line } = await failure(['--json', '--', process.execPath, fixtureBundle(fixture('neither-era-server.ts'))]);
    expect(code).toBe(1);
    expect(line).toMatch(/neither era/);
  });
});
