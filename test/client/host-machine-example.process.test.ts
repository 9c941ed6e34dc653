/**
 * examples/host-machine.ts runs: a host xstate machine invoking a listen
 * stream as its child keeps the official server's tool list fresh, and the
 * child's deliveries are events the host receives from it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureArgs, fixtureBundle } from '../setup/fixture-bundle.ts';

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/**
 * Resolves with `done`'s answer for the text the child wrote on `stream` so far, once it has one (not undefined);
 * rejects if the child exits first.
 */
function untilOutput<T>(child: ChildProcess, stream: 'stdout' | 'stderr', what: string, done: (text: string) => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    let text = '';
    child[stream]!.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const answer = done(text);
      if (answer !== undefined) resolve(answer);
    });
    child.once('exit', (code) => reject(new Error(`the example exited (${code}) before ${what}:\n${text}`)));
  });
}

/** The stdout lines starting with `tools:`, once there are `count` of them. */
const toolLines = (child: ChildProcess, count: number) =>
  untilOutput(child, 'stdout', `${count} tool lines`, (text) => {
    const lines = text.split('\n').filter((line) => line.startsWith('tools: '));
    return lines.length >= count ? lines : undefined;
  });

/** Resolves once the child's stderr showed every one of `texts`. */
const stderrShows = (child: ChildProcess, texts: string[]) =>
  untilOutput(child, 'stderr', `its log showed ${JSON.stringify(texts)}`, (text) => (texts.every((t) => text.includes(t)) ? true : undefined));

describe('examples/host-machine.ts', () => {
  it('lists the tools once the stream is acknowledged, again after the server adds one, and stops on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [fixtureBundle(path('../../examples/host-machine.ts')), '--inspect-events', '--', process.execPath, ...fixtureArgs(path('../fixtures/official-stdio-server.ts')), '--add-tool-after-lists', '1'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(child);
    // The event log comes on stderr, another pipe than the tool lines: a line on one may reach us before an earlier
    // line on the other, so the log is awaited, not read when the tool lines are in.
    const logged = stderrShows(child, ['toolsStream -> host: acknowledged', 'toolsStream -> host: notification']);
    logged.catch(() => {}); // awaited below; an early exit fails toolLines first
    const [first, second] = await toolLines(child, 2);
    expect(first).toContain('echo');
    expect(first).not.toContain('added-1');
    expect(second).toContain('added-1');
    await logged;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
