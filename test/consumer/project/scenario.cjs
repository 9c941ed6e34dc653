// The consumer's client, shared by client.mjs (import), client.cjs
// (require) and http-client.mjs: for each era, connect (`serverFile` started
// over stdio, or the HTTP endpoint of a fresh server, `url()`), list the
// tools, call one with a request `_meta`, open a listen stream (modern) or a notification listener (legacy),
// have the server add a tool, and wait for the one tools/list_changed.
// Prints one JSON line per era; any failure rejects (the caller exits 1).
exports.run = async function run(lib, where) {
  for (const era of ['modern', 'legacy']) {
    const client = lib.createClient({
      transport: where.url
        ? lib.httpTransport({ url: await where.url() })
        : lib.stdioTransport({ command: process.execPath, args: [where.serverFile] }),
      era,
      reconnect: false,
    });
    await client.connect();
    const before = (await client.listTools()).map((tool) => tool.name);
    // A request's `_meta` reaches the handler as the caller wrote it.
    const metaResult = await client.callTool('meta', {}, { meta: { 'consumer.example/run': era } });
    const meta = JSON.parse(metaResult.content[0].text);
    const notifications = [];
    let heard;
    const notified = new Promise((resolve) => (heard = resolve));
    const subscriber = (message) => {
      if (message.type !== 'notification') return;
      notifications.push(message.method);
      heard();
    };
    const filter = { toolsListChanged: true };
    const handle = era === 'modern' ? await client.listen(filter, subscriber) : await client.subscribeNotifications(filter, subscriber);
    await client.callTool('add_tool', {});
    await notified;
    const after = (await client.listTools()).map((tool) => tool.name);
    const negotiated = { era: client.era, protocolVersion: client.protocolVersion };
    if (era === 'modern') handle.close();
    else await client.unsubscribeNotifications(handle);
    await client.close();
    console.log(JSON.stringify({ asked: era, ...negotiated, before, notifications, after, meta }));
  }
};
