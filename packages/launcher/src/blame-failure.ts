import type { FailureRecord } from './failure-report.js';
import type { JobStore } from './job-store.js';
import type { RunningWorker, WorkerExit } from './spawn-workers.js';
import { isStopped } from './stopped-workers.js';

/** How kolorun records a worker it found stopped: no process exits by SIGSTOP. */
export const stoppedExit: WorkerExit = { code: null, signal: 'SIGSTOP' };

/** The failure kolorun reports first, and its claim in the store. */
export interface BlamedFailure {
  readonly worker: RunningWorker;
  readonly exit: WorkerExit;
  /** Resolves once written: true when this claim was the job's first, false when it lost. */
  readonly claimed: Promise<boolean>;
}

/**
 * The failure to report (and claim in the store) for `exiting`'s failed exit: a worker of
 * `alive` found stopped (its peers timed out on it) if there is one, which is then killed; else
 * a worker another node's kolorun recorded as stopped (reported as that node's failure); else
 * `exiting` itself.
 *
 * @example
 * ```ts
 * const first = blameFailure(worker, { code: 1, signal: null }, alive, store);
 * ```
 */
export function blameFailure(exiting: RunningWorker, exitStatus: WorkerExit, alive: ReadonlySet<RunningWorker>, store: JobStore): BlamedFailure {
  const stopped = [...alive].find((w) => isStopped(w.pid));
  // SIGKILL reaches a stopped process; SIGCONT lets anything it left in its group see it.
  stopped?.signalGroup('SIGKILL');
  stopped?.signalGroup('SIGCONT');
  const [worker, exit] = stopped === undefined ? [exiting, exitStatus] : [stopped, stoppedExit];
  const record: FailureRecord = { rank: worker.rank, exitCode: exit.code, signal: exit.signal, host: worker.host };
  const ours = new Set([exiting.rank, ...[...alive].map((w) => w.rank)]);
  const elsewhere = stopped === undefined ? store.readStopped() : Promise.resolve(undefined);
  // A record of one of our own workers is stale: it has been resumed, or it is `exiting`.
  const claimed = elsewhere
    .then((remote) => store.claimFailure(remote !== undefined && !ours.has(remote.rank) ? remote : record))
    .catch(() => false);
  return { worker, exit, claimed };
}
