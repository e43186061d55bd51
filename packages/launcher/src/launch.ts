import { checkElastic, stoppedKillMsOf } from './elastic.js';
import { JobStore } from './job-store.js';
import { LAUNCH_DEFAULTS, type LaunchOptions } from './launch-options.js';
import { runUnderMpirun } from './mpi-handoff.js';
import { planJob, type WorkerPlacement } from './plan.js';
import { checkSshHosts } from './remote-command.js';
import { spawnWorker, type RunningWorker } from './spawn-workers.js';
import { sharedMemoryTag, sweepSharedMemory } from './shm-sweep.js';
import { supervise } from './supervise.js';
import { LaunchError } from './usage-error.js';
import { workerEnv } from './worker-env.js';

/**
 * Runs one job (or this node's part of a multi-node job): hosts or joins the rendezvous store,
 * starts the workers with their `KOLO_*` (and horovodrun's `HOROVOD_*`) environment, tags their
 * output, forwards signals and, when a worker fails, stops the others and reports the rank that
 * failed first.
 *
 * Resolves to the exit code kolorun uses: 0 when every worker exited 0, the first failure's
 * exit code (1 for a signal), or 128 + signal number after a forwarded SIGINT/SIGTERM.
 * Rejects with {@link UsageError} (fix the options) or {@link LaunchError} (e.g. port taken).
 *
 * @example
 * ```ts
 * import { launch } from '@kolo/launcher';
 * process.exitCode = await launch({ command: ['node', 'train.js'], np: 2 });
 * ```
 */
export async function launch(options: LaunchOptions): Promise<number> {
  const env = options.env ?? process.env;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const log = (line: string): void => {
    if (options.verbose) stderr.write(`kolorun: ${line}\n`);
  };
  const startTimeoutMs = options.startTimeoutMs ?? LAUNCH_DEFAULTS.startTimeoutMs;
  const gracePeriodMs = options.gracePeriodMs ?? LAUNCH_DEFAULTS.gracePeriodMs;
  const plan = planJob(options, env);
  const elastic = options.elastic === undefined ? undefined : checkElastic(options.elastic, options.np);

  const remoteHosts = [...new Set(plan.workers.filter((w) => w.remote).map((w) => w.host))];
  // Under --mpi, mpirun reaches the hosts itself (with the same ssh options).
  if (remoteHosts.length > 0 && options.transport !== 'mpi') {
    log(`checking ssh to ${remoteHosts.join(', ')}`);
    await checkSshHosts(remoteHosts, startTimeoutMs, options.ssh);
  }
  const store = await JobStore.open(plan, startTimeoutMs);
  const shmTag = sharedMemoryTag();
  try {
    log(`store ${plan.store.role === 'host' ? 'listening' : 'joined'} at ${plan.storeAddr}:${store.port}, job ${plan.jobId}`);
    const job = {
      storeAddr: plan.storeAddr,
      storePort: store.port,
      secret: plan.secret,
      jobId: plan.jobId,
      ...(options.transport !== undefined && { transport: options.transport }),
      ...(options.networkInterface !== undefined && { iface: options.networkInterface }),
      ...(options.timelineFilename !== undefined && { timeline: options.timelineFilename }),
      ...(elastic !== undefined && { elastic: true }),
      ...(options.gpus !== undefined && { gpus: options.gpus }),
      shmTag,
    };
    if (options.transport === 'mpi') {
      const jobEnv = {
        KOLO_STORE_ADDR: job.storeAddr,
        KOLO_STORE_PORT: String(job.storePort),
        KOLO_JOB_SECRET: job.secret,
        KOLO_JOB_ID: job.jobId,
        KOLO_TRANSPORT: 'mpi',
        KOLO_SHM_TAG: shmTag,
        ...(job.iface !== undefined && { KOLO_IFACE: job.iface }),
        ...(job.timeline !== undefined && { KOLO_TIMELINE: job.timeline }),
      };
      return await runUnderMpirun({ options, plan, store, jobEnv, env, stdout, stderr, log });
    }
    const cwd = options.cwd ?? process.cwd();
    const workers: RunningWorker[] = [];
    for (const placement of plan.workers) {
      let worker: RunningWorker;
      try {
        worker = spawnWorker({
        placement,
        koloEnv: workerEnv(placement, job),
        command: options.command,
        cwd,
        baseEnv: env,
        stdout,
        stderr,
        outputDir: options.outputDir,
        tailLines: LAUNCH_DEFAULTS.stderrTailLines,
        ...(options.ssh !== undefined && { ssh: options.ssh }),
        });
      } catch (error) {
        for (const w of workers) w.signalGroup('SIGKILL');
        throw new LaunchError(`Expected to start rank ${placement.rank} but received: ${(error as Error).message}`, { cause: error });
      }
      workers.push(worker);
      const { rank, localRank, localSize, crossRank, crossSize, host } = placement;
      log(`rank ${rank} on ${host} (local ${localRank}/${localSize}, cross ${crossRank}/${crossSize}), pid ${worker.pid}`);
    }
    return await supervise(workers, {
      store,
      gracePeriodMs,
      killAfterMs: LAUNCH_DEFAULTS.killAfterMs,
      handleSignals: options.handleSignals ?? true,
      watchOtherNodes: (plan.nodes?.nnodes ?? 1) > 1,
      ...(elastic !== undefined && {
        elastic: {
          ...elastic,
          placements: plan.workers,
          stoppedKillMs: stoppedKillMsOf(env),
          spawn: (placement: WorkerPlacement, extraEnv: Record<string, string>) => spawnWorker({ placement, koloEnv: { ...workerEnv(placement, job), ...extraEnv }, command: options.command, cwd, baseEnv: env, stdout, stderr, outputDir: options.outputDir, tailLines: LAUNCH_DEFAULTS.stderrTailLines, ...(options.ssh !== undefined && { ssh: options.ssh }) }),
        },
      }),
      stderr,
      log,
    });
  } finally {
    await store.finish(gracePeriodMs + LAUNCH_DEFAULTS.killAfterMs);
    const removed = sweepSharedMemory(shmTag);
    if (removed.length > 0) {
      stderr.write(`kolorun: removed ${removed.length} shared-memory segment(s) that killed workers left behind: ${removed.join(', ')}\n`);
    }
  }
}
