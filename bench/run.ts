/**
 * The side-by-side benchmark (issue 14): our server against the official
 * @modelcontextprotocol/server 2.4.0 in the same run, and our client against
 * the official client, both clients talking to the official server.
 *
 *   npm run bench                      # everything, several minutes
 *   npm run bench -- --quick           # 1,000 streams, 10,000-notification bursts: a smoke run
 *   npm run bench -- --only stdio,http # some sections: stdio, http, burst, client
 *   npm run bench -- --json            # one JSON line after the tables
 *
 * - stdio / http: listen streams on a fresh server process each
 *   (bench/server/listen-load.ts): open time and the server's CPU time
 *   meanwhile, heap and RSS per stream after GC, fan-out of one update to
 *   every stream and to one. Over stdio one connection carries all streams;
 *   over HTTP each stream is its own POST and SSE response (ours: listenHttp;
 *   official: createMcpHandler on node:http), 1,000 / 10,000 / 50,000, from
 *   several loopback source addresses past one address's ephemeral ports; a
 *   count the host's open-file limit does not allow runs at the most it does.
 *   A fan-out not delivered within a minute is shown as more than that.
 * - burst: the time to answer a request sent during a burst of progress
 *   notifications (sent once 1,000 were read), stdio in both eras and HTTP:
 *   the burst notifications the client read meanwhile and, on stdio, those
 *   the server wrote after reading the request (bench/server/stdio-tap.ts).
 * - client: opening 10,000 listen streams on one stdio connection to the
 *   official server, our client against the official client (median of three
 *   fresh processes).
 *
 * Every row carries the 1-minute load average at its start: the machine may
 * be shared, and wall times move with its load.
 */
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { runBurst, type BurstResult } from './server/burst.ts';
import { hostLimits, httpStreamsFit, sourceAddresses } from './server/host-limits.ts';
import { runHttpBurst } from './server/http-burst.ts';
import { FANOUT_TIMEOUT_MS, runListenLoad, type ListenLoadResult, type Transport } from './server/listen-load.ts';
import { median } from './median.ts';

const SECTIONS = ['stdio', 'http', 'burst', 'client'] as const;
type Section = (typeof SECTIONS)[number];

const { values: flags } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, only: { type: 'string' }, json: { type: 'boolean', default: false } },
  strict: true,
});
const only = new Set((flags.only ?? SECTIONS.join(',')).split(',').map((name) => name.trim()));
for (const name of only) if (!(SECTIONS as readonly string[]).includes(name)) throw new Error(`--only: unknown section ${name}; expected ${SECTIONS.join(',')}`);
const runs = (section: Section) => only.has(section);

const quick = flags.quick;
/**
 * Over HTTP every stream holds a socket on each side: past the ephemeral ports of one loopback address
 * the client connects from several (bench/server/host-limits.ts); a count the open-file limit does not
 * allow runs at the most it allows, and the table says so.
 */
const STREAMS: Record<Transport, number[]> = quick ? { stdio: [1_000], http: [1_000] } : { stdio: [1_000, 10_000, 50_000], http: [1_000, 10_000, 50_000] };
const FANOUT_ROUNDS = quick ? 3 : 5;
const BURST = quick ? 10_000 : 100_000;
const FOLLOW_UP_AFTER = 1_000;
const BURST_TIMEOUT_MS = 60_000;
const CLIENT_STREAMS = quick ? 1_000 : 10_000;
const CLIENT_RUNS = quick ? 1 : 3;

const fixture = (name: string) => fileURLToPath(new URL(`../test/fixtures/${name}`, import.meta.url));
const load = (): string => loadavg().map((value) => value.toFixed(1)).join(' / ');
const load1 = (): string => loadavg()[0]!.toFixed(1);
const n = (value: number) => value.toLocaleString('en-US');
const ms = (value: number): string => (value < 1 ? value.toFixed(3) : value < 10 ? value.toFixed(2) : value.toFixed(0));
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(2)} KB`;
const ratio = (ours: number, official: number): string => `${(ours / official).toFixed(2)}×`;
const pair = (ours: number | undefined, official: number | undefined, format: (value: number) => string): string => {
  const cell = (value: number | undefined) => (value === undefined ? `> ${FANOUT_TIMEOUT_MS / 1000} s` : format(value));
  return `${cell(ours)} vs ${cell(official)}${ours !== undefined && official !== undefined ? ` (${ratio(ours, official)})` : ''}`;
};

const json: Record<string, unknown> = { quick, node: process.version, started: new Date().toISOString(), loadAtStart: loadavg() };
const print = (line: string) => console.log(line);

print(`Node ${process.version}, ${new Date().toISOString()}, load average at start ${load()}${quick ? ' (quick)' : ''}\n`);

for (const transport of ['stdio', 'http'] as const) {
  if (!runs(transport)) continue;
  const results: { streams: number; load: string; ours: ListenLoadResult; official: ListenLoadResult }[] = [];
  print(`### Listen streams over ${transport === 'stdio' ? 'stdio (one connection)' : 'loopback HTTP (a POST and SSE response each)'}: ours vs official (ours / official)\n`);
  print('| streams | open, wall | open, server CPU | server heap per stream | server RSS per stream | fan-out to all | fan-out to one | load (1 min) |');
  print('|---|---|---|---|---|---|---|---|');
  const notes: string[] = [];
  const host = hostLimits();
  if (transport === 'http') notes.push(`Host: ${n(host.openFiles)} open files per process, ephemeral ports ${host.portRange} (${n(host.ephemeralPorts)} per source address); read, not changed.`);
  for (const wanted of STREAMS[transport]) {
    const fit = transport === 'http' ? httpStreamsFit(wanted, host) : ({ fits: true } as const);
    const streams = fit.fits ? wanted : fit.largest;
    const label = fit.fits ? n(streams) : `${n(streams)} (not ${n(wanted)}: see below)`;
    if (!fit.fits) notes.push(`Not ${n(wanted)} streams over HTTP: ${fit.reason}; run at ${n(streams)} instead.`);
    if (transport === 'http') {
      const sources = sourceAddresses(streams, host);
      if (sources.length > 1) notes.push(`${n(streams)} streams over HTTP connect from ${sources.join(', ')} (ephemeral ports ${host.portRange}, ${n(host.ephemeralPorts)} per source address).`);
    }
    const at = load1();
    const ours = await runListenLoad('ours', transport, streams, FANOUT_ROUNDS);
    // Each server's figures on stderr as they come: a long run shows its progress.
    console.error(`ours, ${transport}, ${streams}: ${JSON.stringify(ours)}`);
    const official = await runListenLoad('official', transport, streams, FANOUT_ROUNDS);
    console.error(`official, ${transport}, ${streams}: ${JSON.stringify(official)}`);
    results.push({ streams, load: at, ours, official });
    const seconds = (value: number) => `${(value / 1000).toFixed(2)} s`;
    const msCell = (value: number) => `${ms(value)} ms`;
    print(
      `| ${label} | ${pair(ours.openMs, official.openMs, seconds)} | ${pair(ours.openCpuMs, official.openCpuMs, seconds)} | ${pair(ours.heapPerStream, official.heapPerStream, kb)} | ${pair(ours.rssPerStream, official.rssPerStream, kb)} | ${pair(ours.fanoutAllMs, official.fanoutAllMs, msCell)} | ${pair(ours.fanoutOneMs, official.fanoutOneMs, msCell)} | ${at} → ${load1()} |`,
    );
  }
  print('');
  for (const note of notes) print(`${note}\n`);
  json[transport] = results;
}

if (runs('burst')) {
  const within = (value: number | undefined) => (value === undefined ? `> ${BURST_TIMEOUT_MS / 1000} s` : `${ms(value)} ms`);
  const count = (value: number | undefined) => (value === undefined ? '?' : n(value));
  const cell = (result: BurstResult) =>
    `${within(result.followUpMs)}, behind ${count(result.behind)}${result.serverAhead === undefined ? '' : ` (${count(result.inFlight)} in flight + ${count(result.serverAhead)} queued)`} (burst answered in ${within(result.burstMs)})`;
  print(`### A request sent during a burst of ${n(BURST)} progress notifications (once ${n(FOLLOW_UP_AFTER)} were read): answered in, behind how many burst notifications the client read meanwhile; on stdio split into those in flight (written before the server read the request, not yet read by the client when it sent it) and those queued (written after the server read it)\n`);
  print('| transport, era | ours | official | load (1 min) |');
  print('|---|---|---|---|');
  const results: Record<string, { ours: BurstResult; official: BurstResult; load: string }> = {};
  const cases = [
    ['stdio, modern', () => runBurst(fixture('own-server-stdio.ts'), 'modern', 'progress', BURST, BURST_TIMEOUT_MS, FOLLOW_UP_AFTER), () => runBurst(fixture('official-stdio-server.ts'), 'modern', 'progress', BURST, BURST_TIMEOUT_MS, FOLLOW_UP_AFTER)],
    ['stdio, legacy', () => runBurst(fixture('own-server-stdio.ts'), 'legacy', 'progress', BURST, BURST_TIMEOUT_MS, FOLLOW_UP_AFTER), () => runBurst(fixture('official-stdio-server.ts'), 'legacy', 'progress', BURST, BURST_TIMEOUT_MS, FOLLOW_UP_AFTER)],
    ['HTTP, modern', () => runHttpBurst(fixture('own-server-http.ts'), BURST, FOLLOW_UP_AFTER, BURST_TIMEOUT_MS), () => runHttpBurst(fixture('official-http-server.ts'), BURST, FOLLOW_UP_AFTER, BURST_TIMEOUT_MS)],
  ] as const;
  for (const [name, ours, official] of cases) {
    const at = load1();
    const result = { ours: await ours(), official: await official(), load: at };
    results[name] = result;
    print(`| ${name} | ${cell(result.ours)} | ${cell(result.official)} | ${at} → ${load1()} |`);
  }
  print('');
  json.burst = results;
}

if (runs('client')) {
  type Opened = { ms: number; cpuMs: number; heapBytes: number };
  const MEASURE = fileURLToPath(new URL('./client/measure.ts', import.meta.url));
  const run = promisify(execFile);
  const measure = async (name: 'ours' | 'official'): Promise<Opened> => {
    const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', MEASURE, name, 'streams', String(CLIENT_STREAMS), '1', 'official'], { timeout: 300_000 });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as Opened;
  };
  const at = load1();
  const opened = {} as Record<'ours' | 'official', Opened>;
  for (const name of ['ours', 'official'] as const) {
    const samples: Opened[] = [];
    for (let i = 0; i < CLIENT_RUNS; i++) samples.push(await measure(name));
    opened[name] = { ms: median(samples.map((s) => s.ms)), cpuMs: median(samples.map((s) => s.cpuMs)), heapBytes: median(samples.map((s) => s.heapBytes)) };
  }
  const { ours, official } = opened;
  print(`### Client: open ${n(CLIENT_STREAMS)} listen streams on one stdio connection to the official server (median of ${CLIENT_RUNS}): ours vs official client (ours / official)\n`);
  print('| until all acknowledged | client CPU | client heap per stream | load (1 min) |');
  print('|---|---|---|---|');
  const seconds = (value: number) => `${(value / 1000).toFixed(2)} s`;
  print(`| ${pair(ours.ms, official.ms, seconds)} | ${pair(ours.cpuMs, official.cpuMs, seconds)} | ${pair(ours.heapBytes / CLIENT_STREAMS, official.heapBytes / CLIENT_STREAMS, kb)} | ${at} → ${load1()} |`);
  print('');
  json.client = { ...opened, streams: CLIENT_STREAMS, load: at };
}

print(`Load average at end ${load()}`);
json.loadAtEnd = loadavg();
if (flags.json) console.log(JSON.stringify(json));
process.exit(0);
