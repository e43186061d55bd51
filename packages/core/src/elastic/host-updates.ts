import type { StoreClient } from '../rendezvous/store-client.js';
import { assignmentKey, connectJobStore, readyKey, workerIdOf } from './assignment.js';

/** A blocking GET that outlives any training run: the store's longest wait. */
const forever = 0xffffffff;

interface Watch {
  readonly generation: number;
  pending: boolean;
  closed: boolean;
  client?: StoreClient;
}

let current: Watch | undefined;

/** The store socket is unref'd: with nothing else pending the process would exit mid-await. */
async function keepingAlive<T>(work: Promise<T>): Promise<T> {
  const keepAlive = setInterval(() => {}, 1000);
  try {
    return await work;
  } finally {
    clearInterval(keepAlive);
  }
}

/**
 * Starts watching for the next elastic generation kolorun publishes while this one trains (host
 * discovery added workers): a blocking GET of this worker's next assignment on its own store
 * connection. With `markReady` (rank 0, after every member synced) it first tells kolorun this
 * generation is joined, so kolorun may add workers.
 *
 * @example
 * ```ts
 * await watchHostUpdates(2, { markReady: rank() === 0 });
 * ```
 */
export async function watchHostUpdates(generation: number, options: { markReady: boolean; env?: NodeJS.ProcessEnv }): Promise<void> {
  const env = options.env ?? process.env;
  // Not started by kolorun --min-np: nobody will publish generations to watch for.
  if (env.KOLO_WORKER_ID === undefined || env.KOLO_STORE_ADDR === undefined) return;
  const watch: Watch = { generation, pending: false, closed: false };
  current = watch;
  const client = await keepingAlive(connectJobStore(env, 30_000));
  watch.client = client;
  if (options.markReady) await keepingAlive(client.set(readyKey(generation), '1'));
  if (watch.closed) return void (await keepingAlive(client.close()));
  client.get(assignmentKey(generation + 1, workerIdOf(env)), { timeoutMs: forever }).then(
    () => void (watch.pending = true),
    () => {},
  );
}

/** Stops the watch {@link watchHostUpdates} started (if any) and closes its connection. */
export async function stopWatchingHostUpdates(): Promise<void> {
  const watch = current;
  current = undefined;
  if (watch === undefined) return;
  watch.closed = true;
  if (watch.client !== undefined) await keepingAlive(watch.client.close());
}

/**
 * The generation this rank knows kolorun published after the watched one, or 0 when none yet;
 * undefined when nothing is watched (outside `elastic.run`).
 */
export function publishedAfterWatched(): number | undefined {
  if (current === undefined) return undefined;
  return current.pending ? current.generation + 1 : 0;
}
