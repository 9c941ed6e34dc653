import { createServer } from 'mcp-actors/server';
import { serve } from './server-tools.cjs';

serve({ createServer });
