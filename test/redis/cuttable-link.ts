/**
 * A loopback TCP relay between a node and Redis that the test can cut: while
 * cut it refuses every new connection, so a node whose connections were
 * killed (`CLIENT KILL`) stays away from Redis until the test restores it,
 * however fast its client retries.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface CuttableLink {
  readonly url: string;
  /** Refuses new connections from now on; returns the relay's addresses as Redis sees them, for CLIENT KILL ADDR. */
  cut(): string[];
  restore(): void;
  close(): Promise<void>;
}

export async function cuttableLink(redisPort: number): Promise<CuttableLink> {
  let cut = false;
  const upstreams = new Set<Socket>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((down) => {
    if (cut) {
      down.destroy();
      return;
    }
    const up = connect(redisPort, '127.0.0.1');
    for (const socket of [up, down]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        upstreams.delete(up);
        up.destroy();
        down.destroy();
      });
    }
    upstreams.add(up);
    up.pipe(down);
    down.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `redis://127.0.0.1:${port}`,
    cut() {
      cut = true;
      return [...upstreams].filter((up) => up.localPort !== undefined).map((up) => `127.0.0.1:${up.localPort}`);
    },
    restore() {
      cut = false;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
