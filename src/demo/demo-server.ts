/**
 * The demo server over this process's stdio (both eras):
 *
 *   node dist/src/demo/demo-server.js [--interval-ms N] [--exit-after-ms N]   (from source: node --import tsx src/demo/demo-server.ts)
 *
 * --interval-ms (default 2000, or MCP_ACTORS_DEMO_INTERVAL_MS): time between changes.
 * --exit-after-ms: exit with code 75 (EX_TEMPFAIL) after that long, as a
 *   crash the watcher recovers from: its reconnect starts a fresh process
 *   (without the flag), so the reconnect and resync path is visible once.
 * Exits 0 when stdin ends or on SIGTERM.
 */
import { parseArgs } from 'node:util';
import { createDemoServer } from './demo-catalog.ts';
import { DEFAULT_DEMO_INTERVAL_MS } from './demo-defaults.ts';

const EXIT_TEMPFAIL = 75;

const { values } = parseArgs({
  options: {
    'interval-ms': { type: 'string', default: process.env.MCP_ACTORS_DEMO_INTERVAL_MS ?? String(DEFAULT_DEMO_INTERVAL_MS) },
    'exit-after-ms': { type: 'string' },
  },
  strict: true,
});

const intervalMs = Number(values['interval-ms']);
if (!Number.isFinite(intervalMs) || intervalMs <= 0) {
  process.stderr.write(`--interval-ms must be a positive number, not ${values['interval-ms']}\n`);
  process.exit(2);
}

const demo = createDemoServer();
const stopSchedule = demo.startSchedule(intervalMs);
const connection = demo.server.serveStdio();

const shutDown = async (code: number) => {
  stopSchedule();
  await demo.server.close();
  process.exit(code);
};
void connection.closed.then(() => shutDown(0));
process.on('SIGTERM', () => void shutDown(0));

if (values['exit-after-ms'] !== undefined) {
  // Abrupt on purpose: the watcher should see a crash, not a graceful close.
  setTimeout(() => process.exit(EXIT_TEMPFAIL), Number(values['exit-after-ms']));
}
