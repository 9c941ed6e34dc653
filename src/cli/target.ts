/**
 * Turns a watch target into the client's transport factory. Stdio children
 * are reported as they start (their pid is in the timeline, so an operator or
 * a test can find the process); the demo is this package's own demo server
 * run as a stdio child, told to crash once so the reconnect path is visible.
 */
import { fileURLToPath } from 'node:url';
import type { JsonRpcMessage, RequestId } from '../protocol/jsonrpc.ts';
import type { Era } from '../protocol/versions.ts';
import type { StdioClientTransport, StdioTransportOptions } from '../transport/stdio.ts';
import type { ClientTransport, TransportEvents, TransportFactory } from '../transport/transport.ts';
import { DEFAULT_DEMO_RESTART_AFTER_MS } from '../demo/demo-defaults.ts';
import type { ServerTarget } from './args.ts';

/**
 * The demo beside this module, run the way this module runs: the compiled
 * `.js` with plain node (the package, `npm start`), or, when the CLI is run
 * from its TypeScript sources, the `.ts` under the same loader flags.
 */
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const DEMO_SERVER = fileURLToPath(new URL(`../demo/demo-server.${FROM_SOURCE ? 'ts' : 'js'}`, import.meta.url));
const DEMO_NODE_ARGS = FROM_SOURCE ? process.execArgv : [];

export interface TargetDescription {
  transport: TransportFactory;
  /** For messages: the URL, the command line, or "the demo server". */
  label: string;
}

/**
 * The transport factory for one server (a --config target is resolved into its servers before this).
 * Only the target's own transport is loaded: a stdio watch does not load HTTP, SSE and OAuth.
 */
export async function transportFor(target: ServerTarget, onSpawn: (pid: number, command: string) => void): Promise<TargetDescription> {
  if (target.type === 'http') {
    const { httpTransport } = await import('../transport/http.ts');
    return { transport: httpTransport({ url: target.url, ...(target.headers ? { headers: target.headers } : {}) }), label: target.url.href };
  }
  const { stdioTransport } = await import('../transport/stdio.ts');
  const reportingStdio = (options: () => StdioTransportOptions, label: string): TransportFactory => () =>
    new SpawnReportingTransport(stdioTransport(options())(), label, onSpawn);
  switch (target.type) {
    case 'stdio': {
      const label = [target.command, ...target.args].join(' ');
      const options: StdioTransportOptions = {
        command: target.command,
        args: target.args,
        ...(target.env ? { env: target.env } : {}),
        ...(target.cwd !== undefined ? { cwd: target.cwd } : {}),
      };
      return { transport: reportingStdio(() => options, label), label };
    }
    case 'demo': {
      const restartAfterMs = Number(process.env.MCP_ACTORS_DEMO_RESTART_AFTER_MS ?? DEFAULT_DEMO_RESTART_AFTER_MS);
      let spawns = 0;
      // Only the first process is told to crash: the respawn after the reconnect stays up.
      const options = (): StdioTransportOptions => ({
        command: process.execPath,
        args: [...DEMO_NODE_ARGS, DEMO_SERVER, ...(spawns++ === 0 && restartAfterMs > 0 ? ['--exit-after-ms', String(restartAfterMs)] : [])],
      });
      return { transport: reportingStdio(options, 'demo server'), label: 'the demo server' };
    }
  }
}

/** A stdio transport that reports its child's pid once started. */
class SpawnReportingTransport implements ClientTransport {
  readonly kind = 'stdio';

  constructor(
    private readonly inner: StdioClientTransport,
    private readonly label: string,
    private readonly onSpawn: (pid: number, command: string) => void,
  ) {}

  async start(events: TransportEvents): Promise<void> {
    await this.inner.start(events);
    if (this.inner.pid !== undefined) this.onSpawn(this.inner.pid, this.label);
  }

  send(message: JsonRpcMessage): Promise<void> {
    return this.inner.send(message);
  }

  abortRequest(id: RequestId): boolean {
    return this.inner.abortRequest(id);
  }

  setProtocol(protocol: { era: Era; version: string }): void {
    this.inner.setProtocol(protocol);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
