// The consumer's server, shared by server.mjs (import) and server.cjs
// (require): one tool, and `add_tool`, which defines another and tells every
// client that the list changed. Exits once the client closes its stdin.
exports.serve = function serve({ createServer }) {
  const server = createServer({ name: 'consumer-server', version: '1.0.0' });
  const text = (value) => ({ content: [{ type: 'text', text: value }] });
  server.defineTool('echo', { description: 'Echoes text', inputSchema: { type: 'object' } }, (args) => text(String(args.text)));
  server.defineTool('add_tool', { description: 'Adds the tool "added"', inputSchema: { type: 'object' } }, () => {
    server.defineTool('added', { description: 'Added at run time', inputSchema: { type: 'object' } }, () => text('hello'));
    server.notifyToolsListChanged();
    return text('added');
  });
  const connection = server.serveStdio();
  void connection.closed.then(() => server.close()).then(() => process.exit(0));
};
