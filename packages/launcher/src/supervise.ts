import { constants } from 'node:os';
import type { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeExit, formatFailureReport, formatRemoteFailure, isFailure, type FailureRecord } from './failure-report.js';
import { survivorTopology } from './elastic.js';
import type { JobStore } from './job-store.js';
import type { RunningWorker, WorkerExit } from './spawn-workers.js';
import { isStopped, watchStopped } from './stopped-workers.js';

/** How {@link supervise} stops a job. */
export interface SuperviseOptions {
  readonly store: JobStore;
  /** After the first failure, how long the others may take to exit on their own. */
  readonly gracePeriodMs: number;
  /** Between SIGTERM (or a forwarded signal) and SIGKILL. */
  readonly killAfterMs: number;
  /** Forward SIGINT/SIGTERM/SIGHUP received by this process to the workers. */
  readonly handleSignals: boolean;
  /** Also stop when another node records a failure (multi-node jobs). */
  readonly watchOtherNodes: boolean;
  readonly stderr: Writable;
  /** Receives one line for each step it takes (signals sent, grace periods, exits). */
  readonly log: (line: string) => void;
  /**
   * Elastic job (`--min-np`): a failure that leaves at least `minNp` workers running publishes a
   * new generation for them instead of stopping the job.
   */
  readonly elastic?: { readonly minNp: number };
}

const forwarded: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** How often kolorun looks for stopped workers (two looks in a row name one). */
const stopPollMs = 200;
/** How kolorun records a worker it found stopped: no process exits by SIGSTOP. */
const stoppedExit: WorkerExit = { code: null, signal: 'SIGSTOP' };
/** How long output may still arrive after every worker exited (a grandchild may hold a pipe). */
const drainCapMs = 2000;

/**
 * Waits for every worker. On the first failure it records `kolo/failure` in the store, gives the
 * others `gracePeriodMs` to exit, then SIGTERM, then SIGKILL; forwarded signals skip the grace.
 * Prints the failure report and resolves to kolorun's exit code.
 *
 * @example
 * ```ts
 * const code = await supervise(workers, { store, gracePeriodMs: 10_000, killAfterMs: 5000,
 *   handleSignals: true, watchOtherNodes: false, stderr: process.stderr, log: () => {} });
 * ```
 */
export async function supervise(workers: readonly RunningWorker[], options: SuperviseOptions): Promise<number> {
  const { store, log } = options;
  const alive = new Set(workers);
  const timers: NodeJS.Timeout[] = [];
  let first: { worker: RunningWorker; exit: WorkerExit; claimed: Promise<unknown> } | undefined;
  let interrupted: NodeJS.Signals | undefined;
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
  let generation = 0;
  let published: Promise<void> = Promise.resolve();
  /** Worker id (its first rank) → its rank in the current elastic generation. */
  const currentRank = new Map(workers.map((w) => [String(w.rank), w.rank]));
  const continueElastic = (worker: RunningWorker, exit: WorkerExit): boolean => {
    const minNp = options.elastic?.minNp;
    if (minNp === undefined || alive.size < minNp) return false;
    generation += 1;
    const g = generation;
    const failedRank = currentRank.get(String(worker.rank)) ?? worker.rank;
    const assignments = survivorTopology([...alive]);
    for (const [id, topology] of assignments) currentRank.set(id, topology.rank);
    options.stderr.write(`kolorun: rank ${worker.rank} (pid ${worker.pid ?? 'none'}) failed: ${describeExit(exit)}; continuing with ${alive.size} worker(s) as elastic generation ${g}\n`);
    published = published
      .then(() => store.publishGeneration(g, assignments, { rank: failedRank, exit }))
      .catch((error: Error) => log(`could not publish elastic generation ${g}: ${error.message}`));
    return true;
  };
  const onExit = (exiting: RunningWorker, exitStatus: WorkerExit): void => {
    alive.delete(exiting);
    log(`rank ${exiting.rank} exited: ${exitStatus.signal ?? exitStatus.code}`);
    if (!isFailure(exitStatus) || first !== undefined || interrupted !== undefined) return;
    if (continueElastic(exiting, exitStatus)) return;
    // A stopped worker is why its peers failed: blame it, and kill it (SIGKILL reaches a stopped process).
    const stopped = [...alive].find((w) => isStopped(w.pid));
    stopped?.signalGroup('SIGKILL');
    stopped?.signalGroup('SIGCONT');
    const [worker, exit] = stopped === undefined ? [exiting, exitStatus] : [stopped, stoppedExit];
    const record: FailureRecord = { rank: worker.rank, exitCode: exit.code, signal: exit.signal, host: worker.host };
    const claimed = store.claimFailure(record).catch(() => false).then(startGrace);
    first = { worker, exit, claimed };
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (interrupted !== undefined) return signalAlive('SIGKILL');
    interrupted = signal;
    terminate(signal);
  };
  const killAll = (): void => signalAlive('SIGKILL');

  const stopWatch = options.elastic === undefined
    ? watchStopped(() => alive, stopPollMs, (w) => {
        log(`rank ${w.rank} is stopped`);
        store.nameSuspect({ rank: w.rank, exit: stoppedExit }).catch(() => {});
      })
    : () => {};
  if (options.handleSignals) for (const s of forwarded) process.on(s, onSignal);
  process.on('exit', killAll);
  if (options.watchOtherNodes) {
    store.watchFailure((record) => {
      log(`rank ${record.rank} on ${record.host} failed`);
      startGrace();
    });
  }
  try {
    await Promise.all(workers.map((w) => w.exited.then((exit) => onExit(w, exit))));
    await first?.claimed;
    await published;
  } finally {
    stopWatch();
    for (const t of timers) clearTimeout(t);
    for (const s of forwarded) process.off(s, onSignal);
    process.off('exit', killAll);
    // Leftovers in a worker's process group (its own children) must not outlive the job.
    for (const w of workers) w.signalGroup('SIGKILL');
  }
  await Promise.race([Promise.all(workers.map((w) => w.drained)), sleep(drainCapMs)]);
  return report(first, interrupted, store, options.stderr);
}

async function report(
  first: { worker: RunningWorker; exit: WorkerExit } | undefined,
  interrupted: NodeJS.Signals | undefined,
  store: JobStore,
  stderr: Writable,
): Promise<number> {
  if (first !== undefined) {
    const recorded = await store.readFailure();
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
