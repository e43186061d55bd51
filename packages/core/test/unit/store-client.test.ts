import { createServer, type AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  StoreClient,
  StoreConnectionError,
  StoreServer,
  StoreTimeoutError,
  StoreUnauthorizedError,
} from '../../src/rendezvous/index.js';
import { FrameWriter } from '../../src/rendezvous/store-codec.js';
import { StoreOp } from '../../src/rendezvous/store-protocol.js';
import type { StoreState } from '../../src/rendezvous/store-state.js';
import { authFrame, rawPeer } from './store-raw-peer.js';

const secret = 'test-secret-0123456789';
let server: StoreServer;
const clients: StoreClient[] = [];

async function client(): Promise<StoreClient> {
  const c = await StoreClient.connect({ host: '127.0.0.1', port: server.port, secret, timeoutMs: 2000 });
  clients.push(c);
  return c;
}

function stateOf(s: StoreServer): StoreState {
  return s['state'];
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

beforeEach(async () => {
  server = await StoreServer.listen({ host: '127.0.0.1', port: 0, secret });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server.close();
});

describe('StoreClient against StoreServer', () => {
  it('reads back what it set, as strings and as bytes', async () => {
    const c = await client();
    await c.set('greeting', 'héllo');
    await c.set('blob', new Uint8Array([0, 255, 7]));
    expect((await c.get('greeting', { timeoutMs: 0 })).toString('utf8')).toBe('héllo');
    expect([...(await c.get('blob', { timeoutMs: 0 }))]).toEqual([0, 255, 7]);
  });

  it('releases a blocking get when another client sets the key later', async () => {
    const [reader, writer] = [await client(), await client()];
    const events: string[] = [];
    const got = reader.get('late', { timeoutMs: 5000 }).then((v) => {
      events.push(`got ${v.toString()}`);
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(stateOf(server).waiterCount('late')).toBe(1);
    events.push('set');
    await writer.set('late', 'value');
    await got;
    expect(events).toEqual(['set', 'got value']);
    expect(stateOf(server).waiterCount('late')).toBe(0);
  });

  it('rejects a get with StoreTimeoutError when the key never appears', async () => {
    const c = await client();
    const started = Date.now();
    const error = await c.get('missing', { timeoutMs: 150 }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(StoreTimeoutError.isInstance(error)).toBe(true);
    expect((error as StoreTimeoutError).code).toBe('KOLO_STORE_TIMEOUT');
    expect((error as Error).message).toBe(
      'Expected key "missing" to be set within 150 ms but it was not; check that the process that sets it is alive, or raise timeoutMs',
    );
    // The connection stays usable after a timeout.
    await c.set('missing', 'now');
    expect((await c.get('missing', { timeoutMs: 0 })).toString()).toBe('now');
  });

  it('counts with add across two clients', async () => {
    const [a, b] = [await client(), await client()];
    expect(await a.add('counter', 1)).toBe(1n);
    expect(await b.add('counter', 2)).toBe(3n);
    expect(await a.add('counter', -5n)).toBe(-2n);
    expect((await b.get('counter', { timeoutMs: 0 })).toString()).toBe('-2');
  });

  it('checks and waits for several keys', async () => {
    const [a, b] = [await client(), await client()];
    expect(await a.check(['x', 'y'])).toBe(false);
    let waited = false;
    const waiting = a.wait(['x', 'y'], { timeoutMs: 5000 }).then(() => {
      waited = true;
    });
    await b.set('x', '1');
    await new Promise((r) => setTimeout(r, 30));
    expect(waited).toBe(false);
    await b.set('y', '2');
    await waiting;
    expect(waited).toBe(true);
    expect(await b.check(['x', 'y'])).toBe(true);
    const error = await a.wait(['x', 'z'], { timeoutMs: 50 }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'Expected keys ["x","z"] to be set within 50 ms but they were not; check that the processes that set them are alive, or raise timeoutMs',
    );
  });

  it('deletes keys and reports whether they existed', async () => {
    const c = await client();
    await c.set('gone', 'soon');
    expect(await c.delete('gone')).toBe(true);
    expect(await c.delete('gone')).toBe(false);
    expect(await c.check(['gone'])).toBe(false);
  });

  it('rejects a wrong secret with StoreUnauthorizedError and the exact message', async () => {
    const error = await StoreClient.connect({ host: '127.0.0.1', port: server.port, secret: 'wrong' }).catch(
      (e: unknown) => e,
    );
    expect(StoreUnauthorizedError.isInstance(error)).toBe(true);
    expect((error as StoreUnauthorizedError).code).toBe('KOLO_STORE_UNAUTHORIZED');
    expect((error as Error).message).toBe(
      `The store at 127.0.0.1:${server.port} does not hold this job's KOLO_JOB_SECRET: it refused this process's proof of the secret (Expected a proof of this store's job secret but received one made with another secret). Is another job's launcher on that port? Point KOLO_STORE_ADDR/KOLO_STORE_PORT at this job's kolorun and export the same KOLO_JOB_SECRET for every worker and node`,
    );
  });

  it('throws RangeError at once for a key over 4096 bytes', async () => {
    const c = await client();
    let thrown: unknown;
    try {
      void c.set('k'.repeat(4097), 'v');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RangeError);
    expect((thrown as RangeError & { code: string }).code).toBe('KOLO_INVALID_ARGUMENT');
    expect((thrown as Error).message).toBe(
      'Expected a key of at most 4096 bytes but received 4097 bytes; use a shorter key',
    );
  });

  it('keeps serving others when a client dies in the middle of a wait', async () => {
    const survivor = await client();
    const survivorGet = survivor.get('shared', { timeoutMs: 5000 });
    const dying = await rawPeer(server.port);
    dying.send(authFrame(secret, dying.serverNonce));
    dying.send(new FrameWriter().u8(StoreOp.Get).str('shared').u32(60_000).finish());
    await new Promise((r) => setTimeout(r, 50));
    expect(stateOf(server).waiterCount('shared')).toBe(2);
    dying.socket.destroy();
    await new Promise((r) => setTimeout(r, 50));
    expect(stateOf(server).waiterCount('shared')).toBe(1);
    const writer = await client();
    await writer.set('shared', 'ok');
    expect((await survivorGet).toString()).toBe('ok');
  });

  it('answers one connection in order without blocking other connections', async () => {
    const [blocked, free] = [await client(), await client()];
    const order: string[] = [];
    const slow = blocked.get('slow', { timeoutMs: 5000 }).then(() => order.push('blocked get'));
    const queued = blocked.set('after', '1').then(() => order.push('blocked set'));
    await free.set('other', '2');
    expect(await free.add('n', 1)).toBe(1n);
    order.push('free done');
    await free.set('slow', '3');
    await Promise.all([slow, queued]);
    expect(order).toEqual(['free done', 'blocked get', 'blocked set']);
  });

  it('retries while the server is not listening yet, then connects', async () => {
    const port = await freePort();
    const connecting = StoreClient.connect({ host: '127.0.0.1', port, secret, timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 200));
    const late = await StoreServer.listen({ host: '127.0.0.1', port, secret });
    const c = await connecting;
    await c.set('k', 'v');
    expect((await late.get('k', { timeoutMs: 0 })).toString()).toBe('v');
    await c.close();
    await late.close();
  });

  it('gives up connecting after timeoutMs with StoreTimeoutError', async () => {
    const port = await freePort();
    const error = await StoreClient.connect({ host: '127.0.0.1', port, secret, timeoutMs: 200 }).catch(
      (e: unknown) => e,
    );
    expect(StoreTimeoutError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `Expected the store at 127.0.0.1:${port} to accept a connection within 200 ms but received ECONNREFUSED; check that kolorun (node 0) is running and that KOLO_STORE_ADDR/KOLO_STORE_PORT point at it`,
    );
  });

  it('rejects pending requests with StoreConnectionError when the server closes', async () => {
    const c = await client();
    const pending = c.get('never', { timeoutMs: 60_000 }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 30));
    const port = server.port;
    await server.close();
    const error = await pending;
    expect(StoreConnectionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `Expected the store at 127.0.0.1:${port} to stay connected but the connection closed; check that kolorun is still running`,
    );
    server = await StoreServer.listen({ host: '127.0.0.1', port: 0, secret });
  });
});

describe('StoreServer in-process helpers', () => {
  it('shares keys with clients in both directions', async () => {
    const c = await client();
    server.set('from-server', 'a');
    expect((await c.get('from-server', { timeoutMs: 0 })).toString()).toBe('a');
    const waiting = server.get('from-client', { timeoutMs: 5000 });
    await c.set('from-client', 'b');
    expect((await waiting).toString()).toBe('b');
    expect(server.add('n', 2)).toBe(2n);
    expect(await c.add('n', 3)).toBe(5n);
    await expect(server.wait(['from-client', 'nope'], { timeoutMs: 20 })).rejects.toThrow(
      'Expected keys ["nope"] to be set within 20 ms but they were not',
    );
  });
});
