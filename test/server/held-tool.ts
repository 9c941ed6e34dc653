/** A tool whose calls wait for the test's release, so that requests are running at a moment the test chooses. */
import type { McpServer } from '../../src/server/index.ts';

/** One call of the held tool, as its handler sees it. */
export interface HeldCall {
  /** Lets the handler answer `released`. */
  release(): void;
  /** The handler's signal: aborted when the server gives up on the call. */
  signal: AbortSignal;
}

/** Defines the `held` tool on `server`; `started(n)` resolves once n calls are in their handlers. */
export function defineHeldTool(server: McpServer): { calls: HeldCall[]; started(count: number): Promise<void> } {
  const calls: HeldCall[] = [];
  let onCall = () => {};
  server.defineTool('held', { description: 'Waits for its release', inputSchema: { type: 'object' } }, async (_args, context) => {
    await new Promise<void>((resolve) => {
      calls.push({ release: resolve, signal: context.signal });
      onCall();
    });
    return { content: [{ type: 'text', text: 'released' }] };
  });
  const started = (count: number) =>
    new Promise<void>((resolve) => {
      onCall = () => calls.length >= count && resolve();
      onCall();
    });
  return { calls, started };
}
