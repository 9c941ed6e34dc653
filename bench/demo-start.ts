/**
 * Demo start-up benchmark: how long from spawning the bundled demo server
 * until it answers `server/discover` (the client's probe, which gives a
 * server 2 s before judging it legacy). Each start is a new process, written
 * to at once as the client does; the variants run interleaved, five each:
 *
 * - compiled: `node dist/src/demo/demo-server.js` (what `npm start` runs);
 * - tsx: `node --import tsx src/demo/demo-server.ts` (what it ran before), with
 *   tsx's on-disk cache as it is, and with the cache off (TSX_DISABLE_CACHE);
 * - floor: a node process that answers the first line it reads.
 *
 *   npm run build && npx tsx bench/demo-start.ts
 *
 * Prints a markdown table with the load average beside it.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { modernEnvelope } from '../src/client/outbound.ts';
import { median } from './median.ts';

const ROUNDS = 5;
const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
const FLOOR = `process.stdin.once('data', () => process.stdout.write('{"jsonrpc":"2.0","id":1,"result":{}}\\n'))`;

interface Variant {
  label: string;
  args: string[];
  env?: Record<string, string>;
}

const VARIANTS: Variant[] = [
  { label: 'compiled (node dist/…/demo-server.js)', args: [path('../dist/src/demo/demo-server.js')] },
  { label: 'tsx, cache as it is', args: ['--import', 'tsx', path('../src/demo/demo-server.ts')] },
  { label: 'tsx, cache off', args: ['--import', 'tsx', path('../src/demo/demo-server.ts')], env: { TSX_DISABLE_CACHE: '1' } },
  { label: 'floor (node answering one line)', args: ['-e', FLOOR] },
];

const DISCOVER = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'server/discover',
  params: { _meta: modernEnvelope({ name: 'demo-start-bench', version: '0' }, {}) },
});

/** Milliseconds from spawn to the answer to id 1; the process is ended after. */
function timeOneStart(variant: Variant): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, variant.args, {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, ...variant.env },
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${variant.label}: no answer within 30 s`));
    }, 30_000);
    let buffered = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      buffered += text;
      for (const line of buffered.split('\n').slice(0, -1)) {
        if ((JSON.parse(line) as { id?: unknown }).id !== 1) continue;
        const elapsed = performance.now() - started;
        clearTimeout(timer);
        child.once('exit', () => resolve(elapsed));
        child.stdin.end();
        child.kill('SIGTERM');
        return;
      }
      buffered = buffered.slice(buffered.lastIndexOf('\n') + 1);
    });
    child.once('error', reject);
    child.stdin.write(`${DISCOVER}\n`);
  });
}

const load = () => loadavg().map((value) => value.toFixed(2)).join(' ');

const loadBefore = load();
const times = new Map<Variant, number[]>(VARIANTS.map((variant) => [variant, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const variant of VARIANTS) times.get(variant)!.push(await timeOneStart(variant));
}
const compiled = median(times.get(VARIANTS[0]!)!);

console.log(`load average before ${loadBefore}, after ${load()}; ${ROUNDS} starts each, interleaved\n`);
console.log('| start | median ms | all (ms) | × compiled |');
console.log('|---|---|---|---|');
for (const [variant, values] of times) {
  const m = median(values);
  console.log(`| ${variant.label} | ${m.toFixed(0)} | ${values.map((value) => value.toFixed(0)).join(', ')} | ${(m / compiled).toFixed(2)} |`);
}
