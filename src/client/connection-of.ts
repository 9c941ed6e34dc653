/**
 * How the package's own modules (the change cache, the xstate actor logic,
 * `mcp-actors/testing`) reach a client's connection, which the client keeps
 * private: a registry keyed by the client, filled by its constructor. Not
 * exported from the package.
 */
import type { Connection } from './connection.ts';

const connections = new WeakMap<object, Connection>();

/** Called once by the client's constructor. */
export function registerConnection(client: object, connection: Connection): void {
  connections.set(client, connection);
}

/** The connection of a client made by this package; throws a TypeError for anything else. */
export function connectionOf(client: object): Connection {
  const connection = connections.get(client);
  if (!connection) throw new TypeError('not a client created by mcp-actors');
  return connection;
}
