/**
 * `mcp-actors/redis`: a change bus for several server nodes sharing one
 * Redis (7.0+ for Streams). Needs the optional peer dependency `redis`
 * (node-redis 5 or 6).
 *
 * ```ts
 * import { createServer } from 'mcp-actors/server';
 * import { createRedisBus } from 'mcp-actors/redis';
 *
 * const bus = await createRedisBus({ redis: 'redis://127.0.0.1:6379' });
 * bus.onHealth((health) => metrics.set('redis_bus', health));
 * const server = createServer({ name: 'node-a', version: '1.0.0', bus, onRemoteChange: () => catalog.reload() });
 * // …
 * await server.close();
 * await bus.close();
 * ```
 */
export { createRedisBus, type RedisBus, type RedisBusOptions, type RedisBusHealth } from './redis-bus.ts';
export { isMcpActorsError, McpActorsError } from '../../machines/errors.ts';
export { RedisClientMissingError, type RedisClientLike } from './connection.ts';
export { UnexpectedReplyError } from './stream-protocol.ts';
export { EventTooLargeError, MAX_EVENT_BYTES, StreamEntryError, type StreamEntryProblem } from './entry-errors.ts';
