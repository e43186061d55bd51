import { createHmac, randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreServer } from '../../src/rendezvous/index.js';
import { FrameDecoder } from '../../src/rendezvous/store-frame-decoder.js';
import { FrameWriter } from '../../src/rendezvous/store-codec.js';
import { StoreOp, StoreStatus } from '../../src/rendezvous/store-protocol.js';
import { authFrame, rawPeer as connectPeer, type RawPeer } from './store-raw-peer.js';

const secret = 'raw-secret';
let server: StoreServer;
const sockets: Socket[] = [];

const rawPeer = (): Promise<RawPeer> => connectPeer(server.port, sockets);

async function authedPeer(): Promise<RawPeer> {
  const peer = await rawPeer();
  peer.send(authFrame(secret, peer.serverNonce));
  expect((await peer.response()).status).toBe(StoreStatus.Ok);
  return peer;
}

async function expectFinal(peer: RawPeer, status: number, message: string): Promise<void> {
  const r = await peer.response();
  expect(r.status).toBe(status);
  expect(r.reader.str('message', 1 << 20)).toBe(message);
  await peer.closed;
}

beforeEach(async () => {
  server = await StoreServer.listen({ host: '127.0.0.1', port: 0, secret, authTimeoutMs: 150 });
});

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await server.close();
});

describe('store server wire protocol', () => {
  it('answers SET and GET frames with the documented bytes', async () => {
    const peer = await authedPeer();
    peer.send(new FrameWriter().u8(StoreOp.Set).str('k').bytes(Buffer.from('v')).finish());
    const set = await peer.response();
    expect(set.status).toBe(StoreStatus.Ok);
    expect(set.reader.remaining).toBe(0);
    peer.send(new FrameWriter().u8(StoreOp.Get).str('k').u32(0).finish());
    const get = await peer.response();
    expect(get.status).toBe(StoreStatus.Ok);
    expect(get.reader.bytes('value', 10).toString()).toBe('v');
    peer.send(new FrameWriter().u8(StoreOp.Get).str('absent').u32(0).finish());
    const miss = await peer.response();
    expect(miss.status).toBe(StoreStatus.Timeout);
    expect(miss.reader.remaining).toBe(0);
  });

  it('opens with a CHALLENGE of 32 fresh random bytes on every connection', async () => {
    const [a, b] = [await rawPeer(), await rawPeer()];
    expect(a.serverNonce.byteLength).toBe(32);
    expect(a.serverNonce.equals(b.serverNonce)).toBe(false);
  });

  it('answers a right AUTH with OK and HMAC-SHA256(secret, "kolo-store-server" || client nonce)', async () => {
    const peer = await rawPeer();
    const clientNonce = randomBytes(32);
    // The proof is spelled out with createHmac here, independently of store-auth.ts.
    const clientProof = createHmac('sha256', secret).update('kolo-store-client').update(peer.serverNonce).digest();
    peer.send(new FrameWriter().u8(StoreOp.Auth).raw(clientNonce).raw(clientProof).finish());
    const ok = await peer.response();
    expect(ok.status).toBe(StoreStatus.Ok);
    const expected = createHmac('sha256', secret).update('kolo-store-server').update(clientNonce).digest();
    expect(ok.reader.fixed(32, 'proof').toString('hex')).toBe(expected.toString('hex'));
    expect(ok.reader.remaining).toBe(0);
  });

  it('closes with UNAUTHORIZED on a proof made with another secret', async () => {
    const peer = await rawPeer();
    peer.send(authFrame('another-secret', peer.serverNonce));
    await expectFinal(
      peer,
      StoreStatus.Unauthorized,
      "Expected a proof of this store's job secret but received one made with another secret",
    );
  });

  it('refuses a proof replayed from another connection', async () => {
    const [first, second] = [await rawPeer(), await rawPeer()];
    const replayed = authFrame(secret, first.serverNonce);
    first.send(replayed);
    expect((await first.response()).status).toBe(StoreStatus.Ok);
    second.send(replayed);
    await expectFinal(
      second,
      StoreStatus.Unauthorized,
      "Expected a proof of this store's job secret but received one made with another secret",
    );
  });

  it('closes with UNAUTHORIZED on an AUTH frame of the wrong size (the clear-text AUTH of old)', async () => {
    const peer = await rawPeer();
    peer.send(new FrameWriter().u8(StoreOp.Auth).str(secret).finish());
    await expectFinal(
      peer,
      StoreStatus.Unauthorized,
      'Expected an AUTH frame of 65 bytes (op, 32-byte nonce, 32-byte proof) but received 15 bytes; the client speaks another protocol version',
    );
  });

  it('closes with UNAUTHORIZED when the first frame is not AUTH', async () => {
    const peer = await rawPeer();
    peer.send(new FrameWriter().u8(StoreOp.Set).str('k').bytes(Buffer.from('v')).finish());
    await expectFinal(
      peer,
      StoreStatus.Unauthorized,
      "Expected AUTH (0x01) as the first frame but received op 0x02; answer the store's challenge with AUTH first",
    );
  });

  it('closes with UNAUTHORIZED on a pre-AUTH frame over 4 KiB, before reading its payload', async () => {
    const peer = await rawPeer();
    const header = Buffer.alloc(4);
    header.writeUInt32LE(5000);
    peer.send(header);
    await expectFinal(
      peer,
      StoreStatus.Unauthorized,
      'Expected a frame of at most 4096 bytes but received a header announcing 5000 bytes',
    );
  });

  it('drops a client that does not authenticate within the auth timeout', async () => {
    const peer = await rawPeer();
    await expectFinal(
      peer,
      StoreStatus.Unauthorized,
      "Expected an AUTH frame within 150 ms but received none; answer the store's challenge with AUTH first",
    );
  });

  it('rejects an oversize key with BAD_REQUEST and closes', async () => {
    const peer = await authedPeer();
    peer.send(new FrameWriter().u8(StoreOp.Set).str('k'.repeat(4097)).bytes(Buffer.from('v')).finish());
    await expectFinal(peer, StoreStatus.BadRequest, 'Expected a key of at most 4096 bytes but received 4097 bytes');
  });

  it('rejects an unknown op with BAD_REQUEST and closes', async () => {
    const peer = await authedPeer();
    peer.send(new FrameWriter().u8(0x09).finish());
    await expectFinal(
      peer,
      StoreStatus.BadRequest,
      'Expected an op from 0x02 to 0x07 but received 0x09; the client speaks another protocol version',
    );
  });

  it('rejects trailing bytes after a request with BAD_REQUEST', async () => {
    const peer = await authedPeer();
    peer.send(new FrameWriter().u8(StoreOp.Delete).str('k').u8(1).finish());
    await expectFinal(peer, StoreStatus.BadRequest, 'Expected the DELETE frame to end after 6 bytes but received 1 more');
  });

  it('rejects a key count larger than the frame with BAD_REQUEST', async () => {
    const peer = await authedPeer();
    peer.send(new FrameWriter().u8(StoreOp.Check).u32(1_000_000).finish());
    await expectFinal(peer, StoreStatus.BadRequest, 'Expected 1000000 keys but received only 0 bytes');
  });

  it('rejects ADD on a key that does not hold an integer', async () => {
    const peer = await authedPeer();
    peer.send(new FrameWriter().u8(StoreOp.Set).str('name').bytes(Buffer.from('alice')).finish());
    expect((await peer.response()).status).toBe(StoreStatus.Ok);
    peer.send(new FrameWriter().u8(StoreOp.Add).str('name').i64(1n).finish());
    await expectFinal(
      peer,
      StoreStatus.BadRequest,
      'Expected a decimal integer at key "name" for ADD but received "alice"; use ADD only on counter keys',
    );
  });

  it('accepts requests pipelined in the same packet as AUTH', async () => {
    const peer = await rawPeer();
    peer.send(
      Buffer.concat([
        authFrame(secret, peer.serverNonce),
        new FrameWriter().u8(StoreOp.Add).str('c').i64(40n).finish(),
        new FrameWriter().u8(StoreOp.Add).str('c').i64(2n).finish(),
      ]),
    );
    expect((await peer.response()).status).toBe(StoreStatus.Ok);
    expect((await peer.response()).reader.i64('v')).toBe(40n);
    expect((await peer.response()).reader.i64('v')).toBe(42n);
  });
});

describe('FrameDecoder', () => {
  it('reassembles frames split at every byte boundary', () => {
    const bytes = Buffer.concat([
      new FrameWriter().u8(1).str('ab').finish(),
      new FrameWriter().finish(),
      new FrameWriter().u32(7).finish(),
    ]);
    const decoder = new FrameDecoder(100);
    const out: string[] = [];
    for (const byte of bytes) {
      decoder.push(Buffer.from([byte]));
      for (let p = decoder.next(); p !== undefined; p = decoder.next()) out.push(p.toString('hex'));
    }
    expect(out).toEqual(['01020000006162', '', '07000000']);
  });

  it('refuses a header over the limit before the payload arrives', () => {
    const decoder = new FrameDecoder(8);
    decoder.push(Buffer.from([9, 0, 0, 0]));
    expect(() => decoder.next()).toThrow('Expected a frame of at most 8 bytes but received a header announcing 9 bytes');
  });
});
