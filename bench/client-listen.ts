/**
 * Client benchmark (issue 3): our client against the official
 * @modelcontextprotocol/client 2.4.0 and a bare line reader + JSON.parse
 * floor, all fed by the same flood server (bench/client/flood-server.ts) over
 * stdio.
 *
 * 1. Throughput: 100,000 `notifications/resources/updated` for one URI through
 *    one listen stream; from the request that triggers the flood to the last
 *    delivery. Median of the rounds after a warm-up round.
 * 2. 10,000 concurrent listen streams on one connection (distinct URIs): time
 *    until all are acknowledged, and heap per stream (heapUsed after gc).
 *    Median of three fresh processes.
 *
 * Each measurement runs in a fresh process (bench/client/measure.ts).
 *
 *   npx tsx bench/client-listen.ts
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ConsumerName } from './client/consumers.ts';
import { median } from './median.ts';

const NOTIFICATIONS = 100_000;
const ROUNDS = 5;
const STREAMS = 10_000;
const STREAM_RUNS = 3;
const MEASURE = fileURLToPath(new URL('./client/measure.ts', import.meta.url));
const run = promisify(execFile);

async function measure<T>(...args: string[]): Promise<T> {
  const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', MEASURE, ...args], { timeout: 120_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as T;
}

async function throughput(name: ConsumerName): Promise<number> {
  const { times } = await measure<{ times: number[] }>(name, 'flood', String(NOTIFICATIONS), String(ROUNDS + 1));
  return NOTIFICATIONS / (median(times.slice(1)) / 1000); // the first round warms up
}

const perSecond = (value: number): string => `${Math.round(value).toLocaleString('en-US')}/s`;
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;

const rates = {} as Record<ConsumerName, number>;
for (const name of ['floor', 'ours', 'official'] as const) rates[name] = await throughput(name);
type Opened = { ms: number; cpuMs: number; heapBytes: number };
const opened = {} as Record<'ours' | 'official', Opened>;
for (const name of ['ours', 'official'] as const) {
  // Median of a few fresh processes: on a shared 2-core machine one run is noisy.
  const runs: Opened[] = [];
  for (let run = 0; run < STREAM_RUNS; run++) runs.push(await measure<Opened>(name, 'streams', String(STREAMS)));
  opened[name] = { ms: median(runs.map((r) => r.ms)), cpuMs: median(runs.map((r) => r.cpuMs)), heapBytes: median(runs.map((r) => r.heapBytes)) };
}

const n = (value: number) => value.toLocaleString('en-US');
console.log(`Node ${process.version}, ${new Date().toISOString()}\n`);
console.log('| workload | ours | official @modelcontextprotocol/client 2.4.0 | floor (line reader + JSON.parse) | ours / official | ours / floor |');
console.log('|---|---|---|---|---|---|');
console.log(
  `| ${n(NOTIFICATIONS)} resources/updated through one listen stream over stdio | ${perSecond(rates.ours)} | ${perSecond(rates.official)} | ${perSecond(rates.floor)} | ${ratio(rates.ours, rates.official)} | ${ratio(rates.ours, rates.floor)} |`,
);
console.log(
  `| open ${n(STREAMS)} listen streams at once (distinct URIs), until all acknowledged | ${(opened.ours.ms / 1000).toFixed(2)} s | ${(opened.official.ms / 1000).toFixed(2)} s | – | ${ratio(opened.ours.ms, opened.official.ms)} (time) | – |`,
);
console.log(
  `| CPU time of the client process while opening them | ${(opened.ours.cpuMs / 1000).toFixed(2)} s | ${(opened.official.cpuMs / 1000).toFixed(2)} s | – | ${ratio(opened.ours.cpuMs, opened.official.cpuMs)} (CPU) | – |`,
);
const kb = (bytes: number) => `${(bytes / STREAMS / 1024).toFixed(1)} KB`;
console.log(
  `| heap per open stream (heapUsed after gc, ${n(STREAMS)} streams) | ${kb(opened.ours.heapBytes)} | ${kb(opened.official.heapBytes)} | – | ${ratio(opened.ours.heapBytes, opened.official.heapBytes)} (heap) | – |`,
);
process.exit(0);
