/**
 * The official MCP conformance suites against our HTTP fixture server, via
 * .ci/conformance.sh (0.1.16: server-initialize, tools-list,
 * resources-subscribe, resources-unsubscribe, dns-rebinding-protection;
 * 0.2.0-alpha.12: server-stateless). About 6 s.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../.ci/conformance.sh', import.meta.url));

it('passes every conformance scenario the server claims', async () => {
  const child = spawn('bash', [SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const passed = [...output.matchAll(/Passed: (\d+)\/(\d+), (\d+) failed/g)].map((m) => [Number(m[1]), Number(m[2]), Number(m[3])]);
  expect({ code, scenarios: passed.length }, output).toEqual({ code: 0, scenarios: 6 });
  for (const [pass, total, failed] of passed) {
    expect(failed).toBe(0);
    expect(pass).toBe(total);
  }
}, 90_000);
