const { createServer } = require('mcp-actors/server');
const { serve } = require('./server-tools.cjs');

serve({ createServer });
