// The native engine's store client (packages/native/src/rendezvous/tcp_store.cc) in a real worker
// process: it refuses to join a store with another job secret, in either direction, with the
// same message as the TypeScript client, and never sends the secret.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreServer } from '../../src/rendezvous/index.js';
import { authKey, authProof } from '../../src/rendezvous/store-auth.js';
import { FrameWriter } from '../../src/rendezvous/store-codec.js';
import { STORE_AUTH, StoreStatus } from '../../src/rendezvous/store-protocol.js';
import { fakeStore, recordingProxy, secretForms } from '../unit/store-test-servers.js';
import { repoRoot } from './run-job.js';

const workerScript = `
import { init, shutdown } from '@kolo/core';
try {
  await init();
  console.log(JSON.stringify({ joined: true }));
  await shutdown();
} catch (error) {
  console.log(JSON.stringify({ name: error.name, code: error.code, message: error.message }));
}
`;

interface WorkerOutcome {
  joined?: boolean;
  name?: string;
  code?: string;
  message?: string;
}

/** One worker (rank 0 of 1) pointed at the store on 127.0.0.1:`port` with `secret`. */
function runWorker(port: number, secret: string): Promise<WorkerOutcome> {
  const env = { ...process.env, KOLO_STORE_ADDR: '127.0.0.1', KOLO_STORE_PORT: String(port), KOLO_JOB_SECRET: secret, KOLO_RANK: '0', KOLO_SIZE: '1', KOLO_TIMEOUT_SECONDS: '10' };
  const child = spawn(process.execPath, ['--input-type=module', '-e', workerScript], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve, reject) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(line) as WorkerOutcome);
      } catch {
        reject(new Error(`worker exited ${code} without an outcome:\n${out}\n${err}`));
      }
    }),
  );
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function storeServer(secret: string): Promise<StoreServer> {
  const server = await StoreServer.listen({ host: '127.0.0.1', port: 0, secret });
  cleanups.push(() => server.close());
  return server;
}

const advice =
  "Is another job's launcher on that port? Point KOLO_STORE_ADDR/KOLO_STORE_PORT at this job's kolorun and export the same KOLO_JOB_SECRET for every worker and node";
/** What core's error mapping (errors/from-native.ts) puts around every failed start. */
const initFailed = (message: string): string =>
  `init failed on rank 0: Kolo could not connect rank 0 of 1 to its peers: ${message}. This generation has ended; read the failing rank's log, then call shutdown() and init().`;

describe('a worker and a store with different job secrets', () => {
  it("is refused by the store, and init() rejects saying the store does not hold this job's secret", async () => {
    const server = await storeServer('secret-A');
    const outcome = await runWorker(server.port, 'secret-B');
    expect(outcome).toEqual({
      name: 'CommunicationError',
      code: 'KOLO_COMMUNICATION',
      message: initFailed(
        `The store at 127.0.0.1:${server.port} does not hold this job's KOLO_JOB_SECRET: it refused this process's proof of the secret (Expected a proof of this store's job secret but received one made with another secret). ${advice}`,
      ),
    });
  });

  it('refuses a store whose proof was made with another secret, and init() rejects saying so', async () => {
    const store = await fakeStore((clientNonce) =>
      new FrameWriter()
        .u8(StoreStatus.Ok)
        .raw(authProof(authKey('secret-A'), STORE_AUTH.serverLabel, clientNonce))
        .finish(),
    );
    cleanups.push(() => store.close());
    const outcome = await runWorker(store.port, 'secret-B');
    expect(outcome).toEqual({
      name: 'CommunicationError',
      code: 'KOLO_COMMUNICATION',
      message: initFailed(
        `The store at 127.0.0.1:${store.port} does not hold this job's KOLO_JOB_SECRET: its proof of the secret does not match. ${advice}`,
      ),
    });
  });

  it('joins when the secrets match, and the secret is not in any byte the worker sent', async () => {
    const secret = 'kolo-native-secret-5e8d2a0c91b7';
    const server = await storeServer(secret);
    const proxy = await recordingProxy(server.port);
    cleanups.push(() => proxy.close());
    expect(await runWorker(proxy.port, secret)).toEqual({ joined: true });
    const sent = proxy.sent();
    expect(sent.byteLength).toBeGreaterThan(69);
    for (const form of secretForms(secret)) expect(sent.includes(form)).toBe(false);
  });
});
