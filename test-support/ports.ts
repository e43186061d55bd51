// Free TCP ports for multi-process tests that start workers by hand.
import { createServer } from 'node:net';

/** Listens on `port` (0: any) on loopback and closes again; the port, or undefined if taken. */
function probe(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as { port: number };
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A free port whose successor is free too: torchrun's MASTER_PORT, and the store Kolo's rank 0
 * hosts one port above it. (Another process may still take either before the job binds it.)
 *
 * @example
 * const masterPort = await freePortPair();
 */
export async function freePortPair(): Promise<number> {
  for (;;) {
    const port = await probe(0);
    if (port !== undefined && port < 65535 && (await probe(port + 1)) !== undefined) return port;
  }
}
