/**
 * A host service whose own logic is an xstate machine keeps one MCP server's
 * tool list fresh by invoking a listen stream as its child
 * (`listenLogic`, mcp-actors' actor logic): it lists the tools once the stream
 * is acknowledged, so no change can fall between the list and the stream, and
 * lists them again on every `notifications/tools/list_changed` the child sends
 * it. Modern-era servers only (a legacy server would use `listenerLogic`).
 *
 *   node --import tsx examples/host-machine.ts -- <server command> [args...]
 *
 * Prints `tools: a, b, c` on stdout after every fetch; stops on SIGTERM or
 * SIGINT. With `--inspect-events`, prints each event the child sends the host.
 */
import { parseArgs } from 'node:util';
import { assign, createActor, fromPromise, setup } from 'xstate';
import { listenLogic, type SubscriptionEvent } from '../src/client/actor-logic.ts';
import { createClient, type McpClient } from '../src/client/client.ts';
import { stdioTransport } from '../src/transport/stdio.ts';

const { values, positionals } = parseArgs({ options: { 'inspect-events': { type: 'boolean', default: false } }, allowPositionals: true });
const [command, ...args] = positionals;
if (command === undefined) {
  process.stderr.write('usage: host-machine.ts [--inspect-events] -- <server command> [args...]\n');
  process.exit(2);
}

const toolLister = setup({
  types: {
    context: {} as { client: McpClient; tools: string[]; stale: boolean },
    input: {} as { client: McpClient },
    events: {} as SubscriptionEvent,
  },
  actions: {
    printTools: ({ context }) => void process.stdout.write(`tools: ${context.tools.join(', ')}\n`),
  },
  actors: {
    toolsStream: listenLogic,
    listTools: fromPromise(async ({ input }: { input: { client: McpClient } }) => (await input.client.listTools()).map((tool) => String(tool.name))),
  },
}).createMachine({
  id: 'toolLister',
  context: ({ input }) => ({ client: input.client, tools: [], stale: false }),
  // The stream lives as long as the host: a child of the root, in the host's actor system.
  invoke: { id: 'toolsStream', src: 'toolsStream', input: ({ context }) => ({ client: context.client, filter: { toolsListChanged: true } }) },
  initial: 'waiting',
  states: {
    waiting: { on: { acknowledged: 'fetching' } },
    fetching: {
      entry: assign({ stale: false }),
      invoke: {
        src: 'listTools',
        input: ({ context }) => ({ client: context.client }),
        // Every fetch is printed, also one a change made stale while it was in flight (its refetch prints next).
        onDone: [
          { guard: ({ context }) => context.stale, target: 'fetching', reenter: true, actions: [assign({ tools: ({ event }) => event.output }), 'printTools'] },
          { target: 'fresh', actions: [assign({ tools: ({ event }) => event.output }), 'printTools'] },
        ],
        onError: 'fresh',
      },
      // A change while a fetch is in flight: fetch once more when it lands.
      on: { notification: { actions: assign({ stale: true }) } },
    },
    fresh: {
      on: { notification: 'fetching' },
    },
  },
});

const client = createClient({ transport: stdioTransport({ command, args, stderr: 'inherit' }), era: 'modern' });
await client.connect();
const host = createActor(toolLister, {
  input: { client },
  inspect: values['inspect-events']
    ? (event) => {
        if (event.type === '@xstate.event' && event.sourceRef !== undefined && event.sourceRef === host.getSnapshot().children.toolsStream) {
          process.stderr.write(`toolsStream -> host: ${event.event.type}\n`);
        }
      }
    : undefined,
});
host.start();

const stop = async () => {
  host.stop(); // stops the child, which closes the stream (reason `local`)
  await client.close();
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
