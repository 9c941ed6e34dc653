// The consumer's server, shared by server.mjs (import), server.cjs (require)
// and http-client.mjs: one tool, and `add_tool`, which defines another and
// tells every client that the list changed. Over stdio it exits once the
// client closes its stdin.
function build({ createServer }) {
  const server = createServer({ name: 'consumer-server', version: '1.0.0' });
  const text = (value) => ({ content: [{ type: 'text', text: value }] });
  server.defineTool('echo', { description: 'Echoes text', inputSchema: { type: 'object' } }, (args) => text(String(args.text)));
  // Gives back the request's `_meta` as the handler saw it (the client sends it with `meta`).
  server.defineTool('meta', { description: 'Returns context.meta', inputSchema: { type: 'object' } }, (_args, context) =>
    text(JSON.stringify(context.meta)),
  );
  server.defineTool('add_tool', { description: 'Adds the tool "added"', inputSchema: { type: 'object' } }, () => {
    server.defineTool('added', { description: 'Added at run time', inputSchema: { type: 'object' } }, () => text('hello'));
    server.notifyToolsListChanged();
    return text('added');
  });
  return server;
}
exports.build = build;

exports.serve = function serve(lib) {
  const server = build(lib);
  const connection = server.serveStdio();
  void connection.closed.then(() => server.close()).then(() => process.exit(0));
};
