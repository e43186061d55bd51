import { rm } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { ResolvedConfig } from '../config/resolve-config.js';
import { CommunicationError } from '../errors/communication-error.js';

/** What the store worker (store-worker.ts) posts. */
interface WorkerMessage {
  readonly listening?: boolean;
  readonly error?: string;
}

/**
 * The worker's module next to this one; run from the TypeScript sources (the unit tests), the
 * compiled one, since a worker thread loads plain JS (`tsc -b` builds it before the tests).
 */
function storeWorkerUrl(): URL {
  const here = import.meta.url;
  return here.endsWith('.ts') ? new URL('../../dist/runtime/store-worker.js', here) : new URL('./store-worker.js', here);
}

/**
 * Starts what the configuration asks this process to provide before the engine starts — the
 * TCP store torchrun's rank 0 hosts, on a worker thread — and returns a function that releases
 * it and removes a temporary store directory. On its own thread the store keeps answering the
 * other ranks while this one blocks in a collective or runs a negotiation cycle on the JS thread
 * (a cycle that connects a process set waits on the store).
 *
 * @example
 * ```ts
 * const release = await provideStore(config);
 * try { await binding.startEngine(config.engine); } catch (e) { await release(); throw e; }
 * ```
 */
export async function provideStore(config: ResolvedConfig): Promise<() => Promise<void>> {
  let close = async (): Promise<void> => {};
  if (config.hostStore !== undefined) {
    const { host, port } = config.hostStore;
    const worker = new Worker(storeWorkerUrl(), { workerData: config.hostStore });
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    const first = await new Promise<WorkerMessage>((resolve) => {
      worker.once('message', (message: WorkerMessage) => resolve(message));
      worker.once('error', (error) => resolve({ error: error.message }));
      void exited.then(() => resolve({ error: 'the store thread exited' }));
    });
    if (!first.listening) {
      await worker.terminate();
      throw new CommunicationError(
        `Rank 0 could not host the rendezvous store on ${host}:${port} (${first.error ?? 'unknown error'}). ` +
          'Export KOLO_STORE_PORT with a free port on every node.',
        { rank: config.engine.rank, opName: 'init' },
      );
    }
    close = async () => {
      worker.postMessage('close');
      // The worker exits once the server closed (its port closes); terminate is the backstop.
      const timer = setTimeout(() => void worker.terminate(), 5000);
      await exited;
      clearTimeout(timer);
    };
  }
  const tempDir = config.ownedTempDir;
  return async () => {
    await close();
    if (tempDir !== undefined) await rm(tempDir, { recursive: true, force: true });
  };
}
