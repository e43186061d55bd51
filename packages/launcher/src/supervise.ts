import { constants } from 'node:os';
import type { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { ElasticMembership, type ElasticSupervision } from './elastic-membership.js';
import { blameFailure, stoppedExit, type BlamedFailure } from './blame-failure.js';
import { startHostDiscovery } from './elastic-discovery.js';
import { formatFailureReport, formatRemoteFailure, isFailure } from './failure-report.js';
import type { JobStore } from './job-store.js';
import type { RunningWorker, WorkerExit } from './spawn-workers.js';
import { watchStopped } from './stopped-workers.js';

/** How {@link supervise} stops a job. */
export interface SuperviseOptions {
  /** The job's store, where the first failure is recorded. */
  readonly store: JobStore;
  /** After the first failure, how long the others may take to exit on their own. */
  readonly gracePeriodMs: number;
  /** Between SIGTERM (or a forwarded signal) and SIGKILL. */
  readonly killAfterMs: number;
  /** Forward SIGINT/SIGTERM/SIGHUP received by this process to the workers. */
  readonly handleSignals: boolean;
  /** Also stop when another node records a failure (multi-node jobs). */
  readonly watchOtherNodes: boolean;
  /** Where the failure report and notices go. */
  readonly stderr: Writable;
  /** Receives one line for each step it takes (signals sent, grace periods, exits). */
  readonly log: (line: string) => void;
  /**
   * Elastic job (`--min-np`): a failure that leaves at least `minNp` workers running publishes a
   * new generation for them instead of stopping the job; host discovery may add workers. Failed
   * hosts are blacklisted, and a job past its reset limit stops (exit 1 when no worker failed).
   */
  readonly elastic?: ElasticSupervision;
}

const forwarded: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** How long output may still arrive after every worker exited (a grandchild may hold a pipe). */
const drainCapMs = 2000;
/** How often kolorun looks for stopped workers (two looks in a row name one). */
const stopPollMs = 200;
// How long a launcher whose failure claim lost waits for the winner's record.
const winnerRecordWaitMs = 5000;


/**
 * Waits for every worker (including any host discovery adds). On the first failure it records
 * `kolo/failure` in the store, gives the others `gracePeriodMs` to exit, then SIGTERM, then
 * SIGKILL; forwarded signals skip the grace. A worker found stopped (SIGSTOP) when another fails
 * is the one blamed, and is killed at once. Prints the failure report and resolves to kolorun's
 * exit code.
 *
 * @example
 * ```ts
 * const code = await supervise(workers, { store, gracePeriodMs: 10_000, killAfterMs: 5000,
 *   handleSignals: true, watchOtherNodes: false, stderr: process.stderr, log: () => {} });
 * ```
 */
export async function supervise(workers: readonly RunningWorker[], options: SuperviseOptions): Promise<number> {
  const { store, log } = options;
  const all = [...workers];
  const alive = new Set<RunningWorker>();
  const timers: NodeJS.Timeout[] = [];
  let first: BlamedFailure | undefined;
  let interrupted: NodeJS.Signals | undefined;
  /** An elastic job that may not re-form (reset limit) stops its healthy workers and exits 1. */
  let halted = false;
  let graceStarted = false;
  let killScheduled = false;

  const signalAlive = (signal: NodeJS.Signals): void => {
    for (const w of alive) w.signalGroup(signal);
  };
  const terminate = (signal: NodeJS.Signals): void => {
    log(`sending ${signal} to ${alive.size} worker(s)`);
    signalAlive(signal);
    if (killScheduled) return;
    killScheduled = true;
    timers.push(setTimeout(() => signalAlive('SIGKILL'), options.killAfterMs));
  };
  const startGrace = (): void => {
    if (graceStarted) return;
    graceStarted = true;
    log(`giving ${alive.size} worker(s) ${options.gracePeriodMs} ms to exit`);
    timers.push(setTimeout(() => terminate('SIGTERM'), options.gracePeriodMs));
  };
  const halt = (): void => {
    if (first !== undefined || interrupted !== undefined || halted) return;
    halted = true;
    terminate('SIGTERM');
  };
  const membership = options.elastic && new ElasticMembership(workers, options.elastic, store, options.stderr, log, halt);
  const onExit = (exiting: RunningWorker, exitStatus: WorkerExit): void => {
    alive.delete(exiting);
    log(`rank ${exiting.rank} exited: ${exitStatus.signal ?? exitStatus.code}`);
    const stopping = first !== undefined || interrupted !== undefined || halted;
    if (membership?.onExit(exiting, exitStatus, alive, stopping)) return;
    if (!isFailure(exitStatus) || stopping) return;
    first = blameFailure(exiting, exitStatus, alive, store);
    void first.claimed.then(startGrace);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (interrupted !== undefined) return signalAlive('SIGKILL');
    interrupted = signal;
    terminate(signal);
  };
  const killAll = (): void => signalAlive('SIGKILL');

  let remaining = 0;
  let allExited: () => void = () => {};
  const exitedAll = new Promise<void>((resolve) => (allExited = resolve));
  const track = (w: RunningWorker): void => {
    remaining += 1;
    alive.add(w);
    void w.exited.then((exit) => {
      onExit(w, exit);
      remaining -= 1;
      if (remaining === 0) allExited();
    });
  };
  workers.forEach(track);
  if (workers.length === 0) allExited();

  const stopWatch = watchStopped(() => alive, stopPollMs, (w) => {
    log(`rank ${w.rank} is stopped`);
    if (membership !== undefined) return void timers.push(membership.onStopped(w));
    store.recordStopped({ rank: w.rank, exitCode: null, signal: stoppedExit.signal, host: w.host }).catch(() => {});
  });
  const stopDiscovery = startHostDiscovery(options.elastic, membership, () => alive, (w) => {
    all.push(w);
    track(w);
  }, options.stderr);
  if (options.handleSignals) for (const s of forwarded) process.on(s, onSignal);
  process.on('exit', killAll);
  if (options.watchOtherNodes) {
    store.watchFailure((record) => {
      log(`rank ${record.rank} on ${record.host} failed`);
      startGrace();
    });
  }
  try {
    await exitedAll;
    await first?.claimed;
    await membership?.settled();
  } finally {
    stopWatch();
    stopDiscovery();
    for (const t of timers) clearTimeout(t);
    for (const s of forwarded) process.off(s, onSignal);
    process.off('exit', killAll);
    // Leftovers in a worker's process group (its own children) must not outlive the job.
    for (const w of all) w.signalGroup('SIGKILL');
  }
  await Promise.race([Promise.all(all.map((w) => w.drained)), sleep(drainCapMs)]);
  return halted && first === undefined && interrupted === undefined ? 1 : reportEnd(first, interrupted, store, options.stderr);
}

/**
 * Writes who failed first (this node's worker, or the record another node's launcher claimed)
 * and returns kolorun's exit code; 128 + signal when interrupted, 0 when nothing failed.
 *
 * @example
 * ```ts
 * const code = await reportEnd(first, undefined, store, process.stderr);
 * ```
 */
export async function reportEnd(first: BlamedFailure | undefined, interrupted: NodeJS.Signals | undefined, store: JobStore, stderr: Writable): Promise<number> {
  if (first !== undefined) {
    // A lost claim means another node's launcher won it, and may not have written its record
    // yet (it claims, then writes): wait for it rather than report this node's failure as first.
    const recorded = await store.readFailure((await first.claimed) ? 0 : winnerRecordWaitMs);
    const { worker, exit } = first;
    let text = formatFailureReport({ rank: worker.rank, pid: worker.pid, exit, stderrTail: worker.stderrTail() });
    if (recorded !== undefined && recorded.rank !== worker.rank) {
      text = formatRemoteFailure(recorded) + text.replace(' failed first: ', ' failed: ');
      stderr.write(text);
      return recorded.exitCode || 1;
    }
    stderr.write(text);
    return exit.code || 1;
  }
  if (interrupted !== undefined) return 128 + constants.signals[interrupted];
  return 0;
}
