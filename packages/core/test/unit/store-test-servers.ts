// Stand-ins around a store for handshake tests: a fake store that answers AUTH however a test
// likes, and a relay that records every byte a client sends.
import { createHash, randomBytes } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { FrameWriter } from '../../src/rendezvous/store-codec.js';
import { FrameDecoder } from '../../src/rendezvous/store-frame-decoder.js';
import { StoreStatus } from '../../src/rendezvous/store-protocol.js';

export interface TestServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 and tracks sockets, so close() ends everything at once. */
export async function listenTracked(onSocket: (socket: Socket) => void): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A fake store that sends a challenge and answers the AUTH frame with `answer(clientNonce)`, as
 * a launcher of another job that skipped its own check would.
 */
export function fakeStore(answer: (clientNonce: Buffer) => Buffer): Promise<TestServer> {
  return listenTracked((socket) => {
    socket.write(new FrameWriter().u8(StoreStatus.Challenge).raw(randomBytes(32)).finish());
    const decoder = new FrameDecoder(4096);
    socket.on('data', (chunk: Buffer) => {
      decoder.push(chunk);
      const payload = decoder.next();
      if (payload !== undefined) socket.write(answer(Buffer.from(payload.subarray(1, 33))));
    });
  });
}

/** A TCP relay to `port` on 127.0.0.1 that records every byte its clients send. */
export async function recordingProxy(port: number): Promise<TestServer & { sent(): Buffer }> {
  const chunks: Buffer[] = [];
  const relay = await listenTracked((client) => {
    const upstream = connect({ host: '127.0.0.1', port });
    upstream.on('error', () => client.destroy());
    client.on('data', (chunk: Buffer) => {
      chunks.push(Buffer.from(chunk));
      upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  return { ...relay, sent: () => Buffer.concat(chunks) };
}

/** The secret and forms a careless client might send it in: raw, hex, base64, SHA-256, 8-byte pieces. */
export function secretForms(secret: string): Buffer[] {
  const raw = Buffer.from(secret, 'utf8');
  return [
    raw,
    Buffer.from(raw.toString('hex')),
    Buffer.from(raw.toString('base64')),
    createHash('sha256').update(raw).digest(),
    ...Array.from({ length: Math.max(0, raw.byteLength - 7) }, (_, i) => raw.subarray(i, i + 8)),
  ];
}
