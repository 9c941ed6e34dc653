/**
 * One measurement in a fresh process, so the consumers do not share a heap or
 * JIT state. Prints one JSON line.
 *
 *   node --expose-gc --import tsx bench/client/measure.ts <ours|official|floor> <flood|streams> <n> [rounds] [flood|official]
 *
 * flood: `rounds` floods of n notifications through one stream; the
 *        milliseconds of each, from the triggering request to the last delivery.
 * streams: opens n streams (distinct URIs) at once; the milliseconds until all
 *        are acknowledged, this process's CPU time meanwhile (steadier than
 *        wall time on a loaded machine) and the heap they hold (heapUsed
 *        after gc, minus before).
 * The last argument is the peer: the flood server (default) or the official server.
 */
import { consumers, type ConsumerName, type PeerServer } from './consumers.ts';

const [name, workload, n, rounds, peer] = process.argv.slice(2) as [ConsumerName, 'flood' | 'streams', string, string | undefined, PeerServer | undefined];
const count = Number(n);
const gc = (globalThis as { gc?: () => void }).gc;

const consumer = await consumers[name](peer ?? 'flood');
if (workload === 'flood') {
  const times = await consumer.floods('bench://flood', count, Number(rounds ?? 1));
  console.log(JSON.stringify({ times }));
} else {
  if (!gc) throw new Error('run with --expose-gc');
  const uris = Array.from({ length: count }, (_, i) => `bench://stream/${i}`);
  gc();
  const before = process.memoryUsage().heapUsed;
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  await consumer.openStreams(uris);
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  gc();
  const heapBytes = process.memoryUsage().heapUsed - before;
  console.log(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, heapBytes }));
}
await consumer.close();
process.exit(0);
