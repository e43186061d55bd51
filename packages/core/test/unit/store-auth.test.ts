// The AUTH handshake from the client's side: a store with another secret is refused, the secret
// never crosses the wire, and a peer that is not a Kolo store gets a clear error.
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  StoreClient,
  StoreProtocolError,
  StoreServer,
  StoreTimeoutError,
  StoreUnauthorizedError,
} from '../../src/rendezvous/index.js';
import { authKey, authProof } from '../../src/rendezvous/store-auth.js';
import { FrameWriter } from '../../src/rendezvous/store-codec.js';
import { STORE_AUTH, StoreOp, StoreStatus } from '../../src/rendezvous/store-protocol.js';
import type { StoreConnection } from '../../src/rendezvous/store-connection.js';
import { authFrame, rawPeer } from './store-raw-peer.js';
import {
  fakeStore as startFakeStore,
  listenTracked,
  recordingProxy as startProxy,
  secretForms,
  type TestServer,
} from './store-test-servers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tracked<T extends TestServer>(server: Promise<T>): Promise<T> {
  const s = await server;
  cleanups.push(() => s.close());
  return s;
}

const fakeStore = async (answer: (clientNonce: Buffer) => Buffer): Promise<number> =>
  (await tracked(startFakeStore(answer))).port;

async function storeServer(secret: string): Promise<StoreServer> {
  const server = await StoreServer.listen({ host: '127.0.0.1', port: 0, secret });
  cleanups.push(() => server.close());
  return server;
}

const mismatch = (port: number, why: string): string =>
  `The store at 127.0.0.1:${port} does not hold this job's KOLO_JOB_SECRET: ${why}. Is another job's launcher on that port? Point KOLO_STORE_ADDR/KOLO_STORE_PORT at this job's kolorun and export the same KOLO_JOB_SECRET for every worker and node`;

describe('the store client handshake', () => {
  it('refuses a store whose proof was made with another secret', async () => {
    const port = await fakeStore((clientNonce) =>
      new FrameWriter()
        .u8(StoreStatus.Ok)
        .raw(authProof(authKey('secret-of-another-job'), STORE_AUTH.serverLabel, clientNonce))
        .finish(),
    );
    const error = await StoreClient.connect({ host: '127.0.0.1', port, secret: 'our-secret', timeoutMs: 2000 }).catch(
      (e: unknown) => e,
    );
    expect(StoreUnauthorizedError.isInstance(error)).toBe(true);
    expect((error as StoreUnauthorizedError).code).toBe('KOLO_STORE_UNAUTHORIZED');
    expect((error as Error).message).toBe(mismatch(port, 'its proof of the secret does not match'));
  });

  it('refuses a store that accepts any proof but cannot make its own', async () => {
    const port = await fakeStore(() => new FrameWriter().u8(StoreStatus.Ok).raw(Buffer.alloc(32)).finish());
    const error = await StoreClient.connect({ host: '127.0.0.1', port, secret: 'our-secret', timeoutMs: 2000 }).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toBe(mismatch(port, 'its proof of the secret does not match'));
  });

  it('accepts the same answer when it is made with our secret (the fake store is otherwise sound)', async () => {
    const port = await fakeStore((clientNonce) =>
      new FrameWriter()
        .u8(StoreStatus.Ok)
        .raw(authProof(authKey('our-secret'), STORE_AUTH.serverLabel, clientNonce))
        .finish(),
    );
    const client = await StoreClient.connect({ host: '127.0.0.1', port, secret: 'our-secret', timeoutMs: 2000 });
    await client.close();
  });

  it('says so when the peer does not open with a challenge', async () => {
    const { port } = await tracked(
      listenTracked((socket) => socket.end(new FrameWriter().u8(StoreStatus.Ok).finish())),
    );
    const error = await StoreClient.connect({ host: '127.0.0.1', port, secret: 's', timeoutMs: 2000 }).catch(
      (e: unknown) => e,
    );
    expect(StoreProtocolError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `Expected a challenge (status 4) from the store at 127.0.0.1:${port} but received status 0; check that KOLO_STORE_ADDR/KOLO_STORE_PORT point at a Kolo store of the same version`,
    );
  });

  it('gives up with StoreTimeoutError when the peer accepts but never answers', async () => {
    const { port } = await tracked(listenTracked(() => {}));
    const error = await StoreClient.connect({ host: '127.0.0.1', port, secret: 's', timeoutMs: 300 }).catch(
      (e: unknown) => e,
    );
    expect(StoreTimeoutError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `Expected the store at 127.0.0.1:${port} to complete the AUTH handshake within 1000 ms but it did not; check that KOLO_STORE_ADDR/KOLO_STORE_PORT point at a Kolo store`,
    );
  });
});

describe('the secret on the wire', () => {
  const secret = 'kolo-job-secret-7f3a9c1e5b2d4f60';

  it('never appears in the bytes a client sends, with the right secret or a wrong one', async () => {
    const server = await storeServer(secret);
    const proxy = await tracked(startProxy(server.port));
    const client = await StoreClient.connect({ host: '127.0.0.1', port: proxy.port, secret, timeoutMs: 2000 });
    await client.set('k', 'v');
    expect((await client.get('k', { timeoutMs: 0 })).toString()).toBe('v');
    await client.close();
    const wrong = 'kolo-job-secret-of-another-job-00';
    await expect(
      StoreClient.connect({ host: '127.0.0.1', port: proxy.port, secret: wrong, timeoutMs: 2000 }),
    ).rejects.toThrow("does not hold this job's KOLO_JOB_SECRET");
    const sent = proxy.sent();
    // Two AUTH frames went out, so the scan looked at real handshakes.
    expect(sent.byteLength).toBeGreaterThan(2 * 69);
    for (const form of [...secretForms(secret), ...secretForms(wrong)]) expect(sent.includes(form)).toBe(false);
  });
});

describe('server limits after AUTH', () => {
  it('stops answering a client that does not read its answers instead of buffering them', async () => {
    const secret = 's3cret';
    const server = await storeServer(secret);
    const peer = await rawPeer(server.port);
    cleanups.push(() => void peer.socket.destroy());
    peer.send(authFrame(secret, peer.serverNonce));
    expect((await peer.response()).status).toBe(StoreStatus.Ok);
    peer.socket.pause();
    const value = Buffer.alloc(1 << 20, 7);
    peer.send(new FrameWriter().u8(StoreOp.Set).str('big').bytes(value).finish());
    const get = new FrameWriter().u8(StoreOp.Get).str('big').u32(0).finish();
    for (let i = 0; i < 200; i++) peer.send(get);
    await new Promise((r) => setTimeout(r, 500));
    const [connection] = server['connections'] as Set<StoreConnection>;
    const queuedBytes = (connection as unknown as { socket: Socket }).socket.writableLength;
    // Without backpressure this would be about 200 MiB; with it, at most one answer is queued.
    expect(queuedBytes).toBeLessThanOrEqual(2 * value.byteLength);
  });

  it('decodes at most 64 requests ahead of a blocked one, however many arrive in one write', async () => {
    const secret = 's3cret';
    const server = await storeServer(secret);
    const peer = await rawPeer(server.port);
    cleanups.push(() => void peer.socket.destroy());
    peer.send(authFrame(secret, peer.serverNonce));
    expect((await peer.response()).status).toBe(StoreStatus.Ok);
    const blocked = new FrameWriter().u8(StoreOp.Get).str('never').u32(60_000).finish();
    const check = new FrameWriter().u8(StoreOp.Check).u32(1).str('k').finish();
    peer.send(Buffer.concat([blocked, ...Array.from({ length: 10_000 }, () => check)]));
    await new Promise((r) => setTimeout(r, 300));
    const [connection] = server['connections'] as Set<StoreConnection>;
    expect((connection as unknown as { queued: number }).queued).toBe(64);
  });
});
