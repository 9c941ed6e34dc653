/**
 * The bundled demo server, built with this project's own server API: a few
 * tools, a prompt and two resources, and a schedule that changes one thing
 * per tick so a watcher always has something to show:
 *
 *   tick 1: tool `forecast` added        (tools list_changed)
 *   tick 2: prompt `greeting` reworded   (prompts list_changed)
 *   tick 3: resource demo://clock updated (resources/updated)
 *   tick 4: tool `forecast` removed      (tools list_changed)
 *   … and round again.
 */
import { createServer, type McpServer } from '../server/index.ts';

export const DEMO_CLOCK_URI = 'demo://clock';
export const DEMO_README_URI = 'demo://readme';

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

const GREETINGS = ['Hello', 'Bonjour', 'Hola', 'Ciao', 'Hallo'];

export interface DemoServer {
  readonly server: McpServer;
  /** Starts the change schedule; returns the function that stops it. */
  startSchedule(intervalMs: number): () => void;
  /** Applies the next change at once (what one tick of the schedule does). */
  step(): void;
}

export function createDemoServer(): DemoServer {
  const server = createServer({
    name: 'mcp-actors-demo',
    version: '0.1.0',
    instructions: 'A demo server whose tools, prompts and resources change every few seconds.',
  });
  let tick = 0;
  let clock = new Date().toISOString();
  let greeting = 0;

  server.defineTool('echo', {
    description: 'Returns its text',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  }, (args) => text(String(args.text)));
  server.defineTool('time', {
    description: 'The server clock',
    inputSchema: { type: 'object', properties: {} },
  }, () => text(clock));

  const defineGreeting = () =>
    server.definePrompt('greeting', {
      description: `Greets someone (says "${GREETINGS[greeting % GREETINGS.length]}")`,
      arguments: [{ name: 'name', required: false }],
    }, (args) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `${GREETINGS[greeting % GREETINGS.length]}, ${args.name ?? 'world'}!` } }],
    }));
  defineGreeting();

  server.defineResource(DEMO_README_URI, { name: 'readme', mimeType: 'text/plain' }, (uri) => [
    { uri, mimeType: 'text/plain', text: 'This server changes a tool, a prompt and a resource on a schedule.' },
  ]);
  server.defineResource(DEMO_CLOCK_URI, { name: 'clock', mimeType: 'text/plain' }, (uri) => [
    { uri, mimeType: 'text/plain', text: clock },
  ]);

  const changes: Array<() => void> = [
    () => {
      server.defineTool('forecast', {
        description: 'Tomorrow’s weather (appears and disappears)',
        inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
      }, (args) => text(`Sunny in ${String(args.city ?? 'town')}`));
      server.notifyToolsListChanged();
    },
    () => {
      greeting++;
      defineGreeting();
      server.notifyPromptsListChanged();
    },
    () => {
      clock = new Date().toISOString();
      server.notifyResourceUpdated(DEMO_CLOCK_URI);
    },
    () => {
      server.removeTool('forecast');
      server.notifyToolsListChanged();
    },
  ];
  const step = () => changes[tick++ % changes.length]!();

  return {
    server,
    step,
    startSchedule(intervalMs) {
      const timer = setInterval(step, intervalMs);
      return () => clearInterval(timer);
    },
  };
}
