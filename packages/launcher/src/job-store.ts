import { StoreClient, StoreServer, StoreUnauthorizedError } from '@kolo/core';
import { describeExit, FAILURE_KEY, type FailureRecord } from './failure-report.js';
import type { ElasticTopology } from './elastic.js';
import type { JobPlan } from './plan.js';
import type { WorkerExit } from './spawn-workers.js';
import { storeBindAddress } from './store-bind-address.js';
import { LaunchError } from './usage-error.js';

const claimKey = 'kolo/failure/claims';
/** A worker some node's kolorun found stopped (JSON FailureRecord), written before any claim. */
const STOPPED_KEY = 'kolo/failure/stopped';
/** Read by `@kolo/core`'s `elastic.run` (packages/core/src/elastic/assignment.ts). */
const ELASTIC_GENERATION_KEY = 'kolo/elastic/generation';
const finishedKey = (node: number): string => `kolo/launcher/finished/${node}`;
const forever = 0xffffffff;

const printNotice = (line: string): void => void process.stderr.write(`kolorun: ${line}\n`);

/**
 * Listens where `storeBindAddress` says. A specific address that cannot be bound (anything
 * but a taken or forbidden port) falls back to the wildcard, with a notice.
 */
async function hostStore(store: { bind: string; port: number }, advertised: string, secret: string, notice: (line: string) => void): Promise<StoreServer> {
  const { host, notice: why } = await storeBindAddress(store.bind, advertised);
  const listen = (at: string): Promise<StoreServer> =>
    StoreServer.listen({ host: at, port: store.port, secret }).catch((error: NodeJS.ErrnoException) => {
      if (at !== store.bind && error.code !== 'EADDRINUSE' && error.code !== 'EACCES') {
        notice(`the rendezvous store listens on all interfaces (${store.bind}) because ${at} cannot be bound here (${error.code ?? error.message})`);
        return listen(store.bind);
      }
      throw new LaunchError(`Expected port ${store.port} on ${at} to be free for the rendezvous store but received ${error.code ?? error.message}; pick another --master-port`, { cause: error });
    });
  if (why !== undefined) notice(why);
  return listen(host);
}

/** The keys and values both a StoreServer (in process) and a StoreClient offer. */
export interface KeyValue {
  set(key: string, value: string): unknown;
  add(key: string, delta: number): bigint | Promise<bigint>;
  get(key: string, options: { timeoutMs: number }): Promise<Buffer>;
  wait(keys: readonly string[], options: { timeoutMs: number }): Promise<void>;
}

/** The last stderr lines of the first failure, when a wrapper (not kolorun itself) saw them. */
const FAILURE_TAIL_KEY = 'kolo/failure/stderr';

/**
 * Writes the engine's plain-text failure twins (packages/native/src/engine/kv_store.h) for
 * elastic generation `generation` (0 in a job that is not elastic); the rank is written last.
 * The prefix is the engine's `failureKeyPrefix` (`@kolo/core`'s src/elastic/assignment.ts).
 */
async function nameFailure(kv: KeyValue, failed: { rank: number; exit: { code: number | null; signal: string | null } }, generation: number): Promise<void> {
  const prefix = generation > 0 ? `kolo/elastic/gen${generation}/` : 'kolo/';
  await kv.set(`${prefix}failure_reason`, describeExit(failed.exit));
  await kv.set(`${prefix}failure_rank`, String(failed.rank));
}

/**
 * Records `record` under `kolo/failure` (and `stderrTail`, when given) unless a failure was
 * recorded first; true when this one was first. Used by kolorun and by the `--mpi` worker wrapper.
 *
 * @example
 * ```ts
 * await claimFailure(client, { rank: 1, exitCode: 3, signal: null, host: 'node1' });
 * ```
 */
export async function claimFailure(kv: KeyValue, record: FailureRecord, stderrTail?: readonly string[]): Promise<boolean> {
  if ((await kv.add(claimKey, 1)) !== 1n) return false;
  if (stderrTail !== undefined) await kv.set(FAILURE_TAIL_KEY, JSON.stringify(stderrTail));
  await kv.set(FAILURE_KEY, JSON.stringify(record));
  // Plain-text twins for the native engine, which names the first failing rank in its errors.
  await nameFailure(kv, { rank: record.rank, exit: { code: record.exitCode, signal: record.signal } }, 0);
  return true;
}

/**
 * The launcher's view of the job's rendezvous store: node 0 (or a single launcher) hosts it,
 * other nodes' launchers connect to it as clients.
 */
export class JobStore {
  private watcher: StoreClient | undefined;
  private closed = false;

  private constructor(
    private readonly kv: KeyValue,
    private readonly server: StoreServer | undefined,
    private readonly client: StoreClient | undefined,
    private readonly plan: JobPlan,
    /** The port workers connect to. */
    readonly port: number,
  ) {}

  /**
   * Hosts the store (`plan.store.role === 'host'`) or connects to node 0's, waiting up to
   * `startTimeoutMs` for it. A host binds only the interface other hosts were given (see
   * `storeBindAddress`); when it must listen on every interface, `notice` gets one line
   * saying why. Throws {@link LaunchError} with what to fix.
   *
   * @example
   * ```ts
   * const store = await JobStore.open(plan, 30_000);
   * ```
   */
  static async open(plan: JobPlan, startTimeoutMs: number, notice: (line: string) => void = printNotice): Promise<JobStore> {
    if (plan.store.role === 'host') {
      const server = await hostStore(plan.store, plan.storeAddr, plan.secret, notice);
      return new JobStore(server, server, undefined, plan, server.port);
    }
    const port = plan.nodes?.masterPort as number;
    const where = `${plan.storeAddr}:${port}`;
    const client = await StoreClient.connect({ host: plan.storeAddr, port, secret: plan.secret, timeoutMs: startTimeoutMs }).catch((error: Error) => {
      if (StoreUnauthorizedError.isInstance(error)) {
        throw new LaunchError(`Expected node 0's store at ${where} to hold this node's KOLO_JOB_SECRET but it does not (${error.message})`, { cause: error });
      }
      const code = (error.cause as NodeJS.ErrnoException | undefined)?.code ?? error.message;
      throw new LaunchError(`Expected node 0's store at ${where} to accept this launcher within ${startTimeoutMs / 1000} s but received ${code}; start kolorun --node-rank 0 on ${plan.storeAddr} first, or raise --start-timeout`, { cause: error });
    });
    return new JobStore(client, undefined, client, plan, port);
  }

  /** Records `record` under `kolo/failure` unless a failure was recorded first; true when this one was first. */
  claimFailure(record: FailureRecord): Promise<boolean> {
    return claimFailure(this.kv, record);
  }

  /** The stderr tail the failing worker's `mpi-worker` wrapper stored with its claim (`--mpi` jobs). */
  async readFailureTail(): Promise<string[]> {
    try {
      return JSON.parse((await this.kv.get(FAILURE_TAIL_KEY, { timeoutMs: 0 })).toString('utf8')) as string[];
    } catch {
      return [];
    }
  }

  /**
   * Writes only the engine's failure twins, naming `failed` (by its rank in elastic generation
   * `generation`, 0 when the job is not elastic) before anything is claimed: a worker kolorun sees
   * stopped is named before its peers' engines time out on it and look it up.
   */
  nameSuspect(failed: { rank: number; exit: WorkerExit }, generation = 0): Promise<void> {
    return nameFailure(this.kv, failed, generation);
  }

  /**
   * Records a worker kolorun found stopped, before anything is claimed: the engine's twins (its
   * peers' engines name it when they time out on it) and `kolo/failure/stopped` (so another
   * node's kolorun blames it when one of that node's workers gives up on it first).
   */
  async recordStopped(record: FailureRecord): Promise<void> {
    await this.kv.set(STOPPED_KEY, JSON.stringify(record));
    await this.nameSuspect({ rank: record.rank, exit: { code: record.exitCode, signal: record.signal as NodeJS.Signals | null } });
  }

  /** The worker some node's kolorun recorded as stopped, if any. */
  readStopped(): Promise<FailureRecord | undefined> {
    return this.readRecord(STOPPED_KEY);
  }

  /**
   * Publishes an elastic generation: after a failure the engine's failure twins of the generation
   * before, the one that failed (so survivors' errors name the worker, by its rank there), every
   * member's assignment under `kolo/elastic/gen<g>/assign/<workerId>`, then
   * `kolo/elastic/generation` = g last.
   */
  async publishGeneration(generation: number, assignments: ReadonlyMap<string, ElasticTopology>, failed?: { rank: number; exit: WorkerExit }): Promise<void> {
    if (failed !== undefined) await this.nameSuspect(failed, generation - 1);
    for (const [workerId, topology] of assignments) {
      await this.kv.set(`kolo/elastic/gen${generation}/assign/${workerId}`, JSON.stringify(topology));
    }
    await this.kv.set(ELASTIC_GENERATION_KEY, String(generation));
  }

  /** True once rank 0 of elastic generation `generation` marked it joined (`@kolo/core`'s elastic.run). */
  async generationReady(generation: number): Promise<boolean> {
    try {
      await this.kv.get(`kolo/elastic/gen${generation}/ready`, { timeoutMs: 0 });
      return true;
    } catch {
      return false;
    }
  }

  /**
   * The job's first failure, if one was recorded, waiting up to `waitMs` for it. A launcher whose
   * claim lost waits: the winner (another node's launcher) claims before it writes the record.
   */
  readFailure(waitMs = 0): Promise<FailureRecord | undefined> {
    return this.readRecord(FAILURE_KEY, waitMs);
  }

  private async readRecord(key: string, waitMs = 0): Promise<FailureRecord | undefined> {
    try {
      return JSON.parse((await this.kv.get(key, { timeoutMs: waitMs })).toString('utf8')) as FailureRecord;
    } catch {
      return undefined;
    }
  }

  /**
   * Calls `onFailure` once when any node records a failure (ends silently when the store closes).
   * A client watches on a second connection: a blocking GET would hold back its other requests.
   */
  watchFailure(onFailure: (record: FailureRecord) => void): void {
    const watch = async (): Promise<Buffer> => {
      if (this.server !== undefined) return this.server.get(FAILURE_KEY, { timeoutMs: forever });
      const watcher = await StoreClient.connect({ host: this.plan.storeAddr, port: this.port, secret: this.plan.secret, timeoutMs: 5000 });
      this.watcher = watcher;
      if (this.closed) await watcher.close();
      return watcher.get(FAILURE_KEY, { timeoutMs: forever });
    };
    watch().then(
      (value) => onFailure(JSON.parse(value.toString('utf8')) as FailureRecord),
      () => {},
    );
  }

  /**
   * Marks this node finished and closes. Node 0 first waits up to `timeoutMs` for the other nodes,
   * so their workers can still reach the store while they shut down.
   */
  async finish(timeoutMs: number): Promise<void> {
    const nodes = this.plan.nodes;
    try {
      if (nodes !== undefined && nodes.nnodes > 1) {
        await this.kv.set(finishedKey(nodes.nodeRank), '1');
        if (this.server !== undefined) {
          const keys = Array.from({ length: nodes.nnodes }, (_, i) => finishedKey(i));
          await this.kv.wait(keys, { timeoutMs }).catch(() => {});
        }
      }
    } catch {
      // Node 0 may be gone already; there is nothing left to tell it.
    } finally {
      this.closed = true;
      await this.server?.close();
      await this.client?.close();
      await this.watcher?.close();
    }
  }
}
