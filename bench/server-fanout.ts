/**
 * Server benchmark, ours (src/server) against the official
 * @modelcontextprotocol/server 2.4.0:
 *
 * 1. Fan-out: time from one `resources/updated` publish until all N listen
 *    streams on that URI (N = 1, 100, 10,000; one in-memory stdio connection)
 *    have their tagged notification. Median of several publishes.
 *    Also one publish matching 1 stream while 9,999 others are open.
 * 2. Burst: over real stdio (child processes), both eras, the latency of a
 *    request sent right after asking the server for 100,000
 *    tools/list_changed notifications, and of the burst call itself; bounded
 *    by a timeout.
 *
 *   npx tsx bench/server-fanout.ts
 *
 * Prints a markdown table. Runs in well under two minutes.
 */
import { fileURLToPath } from 'node:url';
import { runBurst, type BurstResult } from './server/burst.ts';
import { officialTarget, openStreams, ourTarget, timeOneFanout, URI, type FanoutTarget } from './server/fanout.ts';
import { median } from './median.ts';

const STREAM_COUNTS = [1, 100, 10_000];
const BURST = 100_000;
const BURST_TIMEOUT_MS = 20_000;
const fixture = (name: string) => fileURLToPath(new URL(`../test/fixtures/${name}`, import.meta.url));

/** Median time to deliver one publish to `uri`, with one stream per entry of `uris` open. */
async function fanout(make: () => FanoutTarget, uris: readonly string[], uri: string, expected: number): Promise<number> {
  const target = make();
  try {
    await openStreams(target, uris);
    const rounds = uris.length >= 10_000 ? 11 : 21;
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) times.push(await timeOneFanout(target, uri, expected));
    return median(times.slice(1)); // the first publish warms up
  } finally {
    await target.close();
  }
}

const ms = (value: number): string => (value < 1 ? value.toFixed(3) : value < 10 ? value.toFixed(2) : value.toFixed(0));
const within = (value: number | undefined): string => (value === undefined ? `> ${BURST_TIMEOUT_MS / 1000} s` : `${ms(value)} ms`);
const burstCell = (result: BurstResult): string =>
  `follow-up ${within(result.followUpMs)}; burst call ${within(result.burstMs)}; ${result.notifications.toLocaleString('en-US')} notifications read`;

const rows: string[] = [];
for (const streams of STREAM_COUNTS) {
  const uris = Array.from({ length: streams }, () => URI);
  const ours = await fanout(() => ourTarget(streams), uris, URI, streams);
  const official = await fanout(() => officialTarget(streams), uris, URI, streams);
  rows.push(`| fan one resources/updated out to ${streams.toLocaleString('en-US')} listen stream(s) on that URI | ${ms(ours)} ms | ${ms(official)} ms |`);
}
{
  // Cost should follow the streams that match, not the streams that are open.
  const uris = [URI, ...Array.from({ length: 9_999 }, (_, i) => `bench://resource/cold/${i}`)];
  const ours = await fanout(() => ourTarget(uris.length), uris, URI, 1);
  const official = await fanout(() => officialTarget(uris.length), uris, URI, 1);
  rows.push(`| one resources/updated matching 1 stream, 9,999 other streams open | ${ms(ours)} ms | ${ms(official)} ms |`);
}
const BURSTS = [
  ['emit', 'tools/list_changed broadcasts'],
  ['progress', 'progress notifications from one tool call'],
] as const;
for (const [kind, what] of BURSTS) {
  for (const era of ['modern', 'legacy'] as const) {
    const ours = await runBurst(fixture('own-server-stdio.ts'), era, kind, BURST, BURST_TIMEOUT_MS);
    const official = await runBurst(fixture('official-stdio-server.ts'), era, kind, BURST, BURST_TIMEOUT_MS);
    rows.push(`| ${era}, stdio: request sent right after asking for ${BURST.toLocaleString('en-US')} ${what} | ${burstCell(ours)} | ${burstCell(official)} |`);
  }
}

console.log(`Node ${process.version}, ${new Date().toISOString()}\n`);
console.log('| workload | ours (src/server) | official @modelcontextprotocol/server 2.4.0 |');
console.log('|---|---|---|');
for (const row of rows) console.log(row);
process.exit(0);
