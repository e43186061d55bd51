import type { Topology } from '../config/resolve-topology.js';
import { StoreClient } from '../rendezvous/store-client.js';

/** Store key of the newest elastic generation kolorun published. */
export const ELASTIC_GENERATION_KEY = 'kolo/elastic/generation';

/**
 * Store key of one worker's topology in an elastic generation.
 *
 * @example
 * ```ts
 * assignmentKey(2, '3'); // 'kolo/elastic/gen2/assign/3'
 * ```
 */
export const assignmentKey = (generation: number, workerId: string): string => `kolo/elastic/gen${generation}/assign/${workerId}`;

/**
 * Where the engine looks up, and kolorun records, the rank that failed first in an elastic
 * generation (keys `failure_rank` and `failure_reason` after it): generation 0, like any job that
 * is not elastic, uses `kolo/`; later generations their own prefix, so a failure named in one
 * generation is never read as the cause of a failure in the next. kolorun writes them
 * (packages/launcher/src/job-store.ts).
 *
 * @example
 * ```ts
 * failureKeyPrefix(0); // 'kolo/'
 * failureKeyPrefix(2); // 'kolo/elastic/gen2/'
 * ```
 */
export const failureKeyPrefix = (generation: number): string => (generation > 0 ? `kolo/elastic/gen${generation}/` : 'kolo/');

/** Store key rank 0 of an elastic generation sets once every member joined it (kolorun adds workers only then). */
export const readyKey = (generation: number): string => `kolo/elastic/gen${generation}/ready`;

/** Where this worker sits in an elastic generation. */
export interface Assignment {
  /** The elastic generation (0 for the first set of workers; each change adds one). */
  readonly generation: number;
  /** This worker's rank, size and host placement in that generation. */
  readonly topology: Topology;
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (value === undefined || value === '') {
    throw new TypeError(`Expected ${name} in the environment for elastic.run but received nothing; start the job with kolorun --min-np/--max-np`);
  }
  return value;
}

/**
 * Connects to kolorun's store as the environment says (`KOLO_STORE_ADDR`, `KOLO_STORE_PORT`,
 * `KOLO_JOB_SECRET`); throws a TypeError naming a missing variable.
 *
 * @example
 * ```ts
 * const client = await connectJobStore(process.env, 30_000);
 * ```
 */
export function connectJobStore(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<StoreClient> {
  return StoreClient.connect({
    host: required(env, 'KOLO_STORE_ADDR'),
    port: Number(required(env, 'KOLO_STORE_PORT')),
    secret: required(env, 'KOLO_JOB_SECRET'),
    timeoutMs,
  });
}

/** This worker's id across generations (`KOLO_WORKER_ID`, set by kolorun in elastic jobs). */
export function workerIdOf(env: NodeJS.ProcessEnv): string {
  return required(env, 'KOLO_WORKER_ID');
}

/**
 * Waits up to `timeoutMs` for this worker's assignment in a generation after `after`, asking
 * kolorun's store (`KOLO_STORE_ADDR`, `KOLO_STORE_PORT`, `KOLO_JOB_SECRET`). Takes the newest
 * generation once one exists, so two failures in a row do not cost two rendezvous. Rejects when
 * nothing arrives in time or this worker is not part of the newest generation.
 *
 * @example
 * ```ts
 * const { generation, topology } = await nextAssignment(0, { timeoutMs: 30_000 });
 * ```
 */
export async function nextAssignment(after: number, options: { timeoutMs: number; env?: NodeJS.ProcessEnv }): Promise<Assignment> {
  const env = options.env ?? process.env;
  const workerId = required(env, 'KOLO_WORKER_ID');
  // With the engine shut down nothing else may hold the event loop open while the store blocks.
  const keepAlive = setInterval(() => {}, 1000);
  let client: StoreClient | undefined;
  try {
    client = await connectJobStore(env, options.timeoutMs);
    await client.get(assignmentKey(after + 1, workerId), { timeoutMs: options.timeoutMs });
    const newest = Number((await client.get(ELASTIC_GENERATION_KEY, { timeoutMs: options.timeoutMs })).toString('utf8'));
    const generation = Math.max(after + 1, newest);
    const value = await client.get(assignmentKey(generation, workerId), { timeoutMs: options.timeoutMs });
    return { generation, topology: JSON.parse(value.toString('utf8')) as Topology };
  } finally {
    // close() waits for an unref'd socket to end: keep the loop alive until it has.
    await client?.close();
    clearInterval(keepAlive);
  }
}
