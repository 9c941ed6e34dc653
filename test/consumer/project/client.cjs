const { join } = require('node:path');
const lib = require('mcp-actors');
const { run } = require('./scenario.cjs');

run(lib, { serverFile: join(__dirname, 'server.cjs') }).catch((error) => {
  console.error(error);
  process.exit(1);
});
