import { afterEach, describe, expect, it } from 'vitest';
import { NotConnectedError, TransportStartError } from '../../src/protocol/errors.ts';
import type { ClassifiedFrame } from '../../src/protocol/jsonrpc.ts';
import { stdioTransport, type StdioClientTransport, type StdioTransportOptions } from '../../src/transport/stdio.ts';
import type { TransportFactory } from '../../src/transport/transport.ts';
import { initializeRequest, RecordingEvents, request, resultOf } from './recording-events.ts';
import { fixtureArgs } from '../setup/fixture-bundle.ts';

const OFFICIAL = 'test/fixtures/official-stdio-server.ts';
const SCRIPTED = 'test/fixtures/scripted-peer.ts';

const running: StdioClientTransport[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((transport) => transport.close()));
});

async function open(options: StdioTransportOptions) {
  const transport = stdioTransport(options)();
  running.push(transport);
  const events = new RecordingEvents();
  await transport.start(events);
  return { transport, events };
}

const fixture = (path: string, args: string[] = [], options: Partial<StdioTransportOptions> = {}) =>
  open({ command: process.execPath, args: [...fixtureArgs(path), ...args], ...options });

const initialize = initializeRequest('stdio-test');

const problemOf = (frame: ClassifiedFrame) => (frame.kind === 'invalid' ? frame.error.problem : frame.kind);

describe('stdio transport against the official SDK server', () => {
  it('carries an initialize handshake and a tools/list to a real server and back', async () => {
    const { transport, events } = await fixture(OFFICIAL);
    expect(transport.kind).toBe('stdio');
    await transport.send(initialize);
    const init = resultOf(await events.response(1));
    expect(init.protocolVersion).toBe('2025-11-25');
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await transport.send(request(2, 'tools/list'));
    const tools = resultOf(await events.response(2)).tools as Array<{ name: string }>;
    expect(tools.map((tool) => tool.name)).toContain('echo');
    expect(events.frames.every((frame) => frame.kind === 'response')).toBe(true);
  });

  it('reports the child being killed as exited with the signal, once', async () => {
    const { transport, events } = await fixture(OFFICIAL);
    process.kill(transport.pid!, 'SIGKILL');
    expect(await events.whenClosed()).toEqual({ type: 'exited', code: null, signal: 'SIGKILL' });
    await transport.close();
    expect(events.closures).toHaveLength(1);
  });

  it('pipes the child stderr to onStderr', async () => {
    let stderr = '';
    let sawLine!: () => void;
    const line = new Promise<void>((resolve) => (sawLine = resolve));
    const { transport, events } = await fixture(OFFICIAL, ['--legacy', 'reject'], {
      stderr: 'pipe',
      onStderr: (text) => {
        stderr += text;
        if (stderr.includes('\n')) sawLine();
      },
    });
    expect(transport.stderr).not.toBeNull();
    await transport.send(initialize);
    await events.response(1);
    await line;
    expect(stderr).toMatch(/Rejected 2025-era request/);
  });

  it('close() ends stdin, resolves once the child exited, and reports no closed event', async () => {
    const { transport, events } = await fixture(OFFICIAL);
    await transport.send(initialize);
    await events.response(1);
    await transport.close();
    expect(transport.exitStatus).toEqual({ code: 0, signal: null });
    expect(events.closures).toEqual([]);
    await expect(transport.send(request(2, 'tools/list'))).rejects.toBeInstanceOf(NotConnectedError);
  });
});

describe('stdio transport start and shutdown', () => {
  it('is a TransportFactory that makes a fresh, unstarted transport per call', () => {
    const factory: TransportFactory = stdioTransport({ command: process.execPath });
    const first = factory();
    expect(first).not.toBe(factory());
    expect(first.kind).toBe('stdio');
  });

  it('rejects start with TransportStartError when the command does not exist', async () => {
    const transport = stdioTransport({ command: 'mcp-actors-no-such-command' })();
    running.push(transport);
    const events = new RecordingEvents();
    const error = await transport.start(events).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransportStartError);
    expect((error as TransportStartError).cause).toMatchObject({ code: 'ENOENT' });
    await transport.close();
    expect(events.closures).toEqual([]);
  });

  it('refuses a second start of the same transport', async () => {
    const { transport, events } = await fixture(SCRIPTED);
    await expect(transport.start(events)).rejects.toBeInstanceOf(TransportStartError);
  });

  it('escalates to SIGTERM when the child ignores the end of stdin', async () => {
    const child = 'process.stdout.write("{\\"jsonrpc\\":\\"2.0\\",\\"method\\":\\"ready\\"}\\n"); setInterval(() => {}, 1000);';
    const { transport, events } = await open({ command: process.execPath, args: ['-e', child], closeGraceMs: 20 });
    await events.next((frame) => frame.kind === 'notification');
    await transport.close();
    expect(transport.exitStatus).toEqual({ code: null, signal: 'SIGTERM' });
    expect(events.closures).toEqual([]);
  });

  it('escalates to SIGKILL when the child also ignores SIGTERM', async () => {
    const child =
      'process.on("SIGTERM", () => {}); process.stdout.write("{\\"jsonrpc\\":\\"2.0\\",\\"method\\":\\"ready\\"}\\n"); setInterval(() => {}, 1000);';
    const { transport, events } = await open({
      command: process.execPath,
      args: ['-e', child],
      closeGraceMs: 10,
      killGraceMs: 20,
    });
    await events.next((frame) => frame.kind === 'notification');
    await transport.close();
    expect(transport.exitStatus).toEqual({ code: null, signal: 'SIGKILL' });
    expect(events.closures).toEqual([]);
  });

  it('reports the exit code when the peer exits on its own', async () => {
    const { transport, events } = await fixture(SCRIPTED);
    await transport.send(request(1, 'script/exit', { code: 3 }));
    expect(await events.whenClosed()).toEqual({ type: 'exited', code: 3, signal: null });
  });
});

describe('stdio transport with hostile output (scripted peer)', () => {
  it('turns garbage, truncated JSON and non-objects into one invalid frame each (a batch: one per element) and keeps going', async () => {
    const { transport, events } = await fixture(SCRIPTED);
    await transport.send(
      request(1, 'script/emit', {
        lines: ['this is not json', '{"jsonrpc":"2.0","method":"notif', '[1,2,3]', '42', '{"jsonrpc":"2.0","method":"notifications/after"}'],
      }),
    );
    await events.response(1);
    expect(events.frames.map(problemOf)).toEqual([
      'unparseable',
      'unparseable',
      'not_an_object',
      'not_an_object',
      'not_an_object',
      'not_an_object',
      'notification',
      'response',
    ]);
    await transport.send(request(2, 'tools/list'));
    expect(resultOf(await events.response(2)).tools).toHaveLength(1);
  });

  it('passes a response to an id nobody asked for up as a response frame', async () => {
    const { transport, events } = await fixture(SCRIPTED);
    await transport.send(request(1, 'script/emit', { lines: ['{"jsonrpc":"2.0","id":"nobody","result":{}}'] }));
    await events.response(1);
    expect(events.frames[0]).toMatchObject({ kind: 'response', message: { id: 'nobody' } });
  });

  it('refuses an oversized line once, without buffering it, and delivers later frames', async () => {
    const { transport, events } = await fixture(SCRIPTED, [], { maxFrameBytes: 4096 });
    await transport.send(request(1, 'script/oversized', { chars: 1_000_000 }));
    await events.response(1);
    expect(events.frames.map(problemOf)).toEqual(['oversized', 'response']);
    await transport.send(request(2, 'script/oversized', { chars: 4000 }));
    await events.response(2);
    expect(events.frames.map(problemOf).slice(2)).toEqual(['notification', 'response']);
  });

  it('waits for drain under backpressure and delivers every message in order', async () => {
    const { transport, events } = await fixture(SCRIPTED);
    const padding = 'p'.repeat(100_000);
    const count = 100;
    await Promise.all(
      Array.from({ length: count }, (_, index) => transport.send(request(index, 'tools/list', { padding }))),
    );
    await events.response(count - 1);
    const ids = events.frames.map((frame) => (frame.kind === 'response' ? frame.message.id : null));
    expect(ids).toEqual(Array.from({ length: count }, (_, index) => index));
  });

  it('rejects send after the peer exited', async () => {
    const { transport, events } = await fixture(SCRIPTED);
    await transport.send(request(1, 'script/exit', { code: 0 }));
    await events.whenClosed();
    await expect(transport.send(request(2, 'tools/list'))).rejects.toBeInstanceOf(NotConnectedError);
  });

  it('does not abort requests itself and ignores the protocol', async () => {
    const { transport } = await fixture(SCRIPTED);
    expect(transport.abortRequest(1)).toBe(false);
    transport.setProtocol({ era: 'modern', version: '2026-07-28' });
  });
});
