// A raw TCP peer of the store for tests that work byte by byte: it reads whole frames and keeps
// the server's challenge nonce, so a test can build AUTH frames (right or wrong) by hand.
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { authKey, authProof } from '../../src/rendezvous/store-auth.js';
import { FrameWriter, PayloadReader } from '../../src/rendezvous/store-codec.js';
import { FrameDecoder } from '../../src/rendezvous/store-frame-decoder.js';
import { STORE_AUTH, StoreOp, StoreStatus } from '../../src/rendezvous/store-protocol.js';

export interface RawPeer {
  readonly socket: Socket;
  /** The nonce of the server's CHALLENGE frame. */
  readonly serverNonce: Buffer;
  send(bytes: Buffer): void;
  /** The next frame the server sent after its challenge. */
  response(): Promise<{ status: number; reader: PayloadReader }>;
  readonly closed: Promise<void>;
}

/** Connects and waits for the server's CHALLENGE frame. */
export async function rawPeer(port: number, sockets: Socket[] = []): Promise<RawPeer> {
  const socket = connect({ host: '127.0.0.1', port });
  sockets.push(socket);
  const decoder = new FrameDecoder(1 << 30);
  const frames: Buffer[] = [];
  const waiting: ((b: Buffer) => void)[] = [];
  socket.on('data', (chunk: Buffer) => {
    decoder.push(chunk);
    for (let p = decoder.next(); p !== undefined; p = decoder.next()) {
      const w = waiting.shift();
      if (w) w(p);
      else frames.push(p);
    }
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const next = async (): Promise<Buffer> =>
    frames.shift() ?? (await new Promise<Buffer>((resolve) => waiting.push(resolve)));
  const challenge = new PayloadReader(await next());
  if (challenge.u8('status') !== StoreStatus.Challenge) throw new Error('expected a challenge');
  const serverNonce = Buffer.from(challenge.fixed(STORE_AUTH.nonceBytes, 'nonce'));
  challenge.end('the challenge');
  return {
    socket,
    serverNonce,
    send: (bytes) => socket.write(bytes),
    closed,
    response: async () => {
      const reader = new PayloadReader(await next());
      return { status: reader.u8('status'), reader };
    },
  };
}

/** An AUTH frame answering `serverNonce` with a proof made from `secret`. */
export function authFrame(secret: string, serverNonce: Buffer, clientNonce: Buffer = randomBytes(32)): Buffer {
  return new FrameWriter()
    .u8(StoreOp.Auth)
    .raw(clientNonce)
    .raw(authProof(authKey(secret), STORE_AUTH.clientLabel, serverNonce))
    .finish();
}
