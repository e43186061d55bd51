import { spawn, spawnSync } from 'node:child_process';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Readable, Writable } from 'node:stream';
import { describeExit } from './failure-report.js';
import type { JobStore } from './job-store.js';
import type { LaunchOptions } from './launch-options.js';
import { mpirunArgs } from './mpirun-command.js';
import { MpirunOutputJoiner, type RankLine, mpirunTagPattern } from './mpirun-output.js';
import type { JobPlan } from './plan.js';
import { LaunchError } from './usage-error.js';

/** What {@link runUnderMpirun} needs from {@link launch}. */
export interface MpiHandoff {
  readonly options: LaunchOptions;
  readonly plan: JobPlan;
  readonly store: JobStore;
  /** The job's `KOLO_*` variables (store address, port, secret, job id, transport, …). */
  readonly jobEnv: Readonly<Record<string, string>>;
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly log: (line: string) => void;
}

const wrapperPath = fileURLToPath(new URL('./mpi-worker.js', import.meta.url));

/**
 * Open MPI's major version; throws {@link LaunchError} unless `mpirun` on PATH is Open MPI's (the
 * flags below are its own).
 */
function checkMpirun(env: NodeJS.ProcessEnv): number {
  const probe = spawnSync('mpirun', ['--version'], { env, encoding: 'utf8', timeout: 10_000 });
  const fix = 'install Open MPI (apt install openmpi-bin libopenmpi-dev), or run without --mpi (Gloo)';
  if (probe.error !== undefined) {
    throw new LaunchError(`Expected mpirun on PATH for --mpi but received ${(probe.error as NodeJS.ErrnoException).code ?? probe.error.message}; ${fix}`);
  }
  if (!/Open MPI|OpenRTE/.test(`${probe.stdout}${probe.stderr}`)) {
    const first = `${probe.stdout}${probe.stderr}`.trim().split('\n')[0] ?? '';
    throw new LaunchError(`Expected Open MPI's mpirun for --mpi but received "${first}"; start MPICH jobs with mpiexec directly (Kolo picks MPI itself), or ${fix}`);
  }
  return Number(/(?:Open MPI|OpenRTE)\)?\s+(\d+)\./.exec(probe.stdout)?.[1] ?? 4);
}

/** Rebuilt lines (each already tagged by the wrapper), each with its newline, for one write. */
const withNewline = (lines: readonly RankLine[]): Buffer => Buffer.concat(lines.flatMap(({ line }) => [line, Buffer.from('\n')]));

/**
 * Hands a `kolorun --mpi` job to Open MPI's `mpirun`, as horovodrun does: kolorun keeps hosting the
 * authenticated store (workers find it through the forwarded `KOLO_STORE_*` variables and pick the
 * MPI transport from mpirun's environment), forwards SIGINT/SIGTERM to mpirun, and when the job
 * fails prints the rank that failed first (recorded by the `mpi-worker` wrapper) before mpirun's
 * own messages. Resolves to kolorun's exit code, as {@link supervise} does.
 */
export async function runUnderMpirun(handoff: MpiHandoff): Promise<number> {
  const { options, plan, store, stderr, log } = handoff;
  const tag = mpirunTagPattern(checkMpirun(handoff.env));
  const env = { ...handoff.env, ...handoff.jobEnv, ...(options.outputDir !== undefined && { KOLO_OUTPUT_DIR: options.outputDir }) };
  const remote = plan.workers.some((w) => w.remote);
  const wrapper = [remote ? 'node' : process.execPath, wrapperPath];
  const args = mpirunArgs({ options, plan, env, wrapper, root: process.getuid?.() === 0 });
  log(`mpirun ${args.join(' ')}`);
  // Its own process group: a terminal's Ctrl-C reaches kolorun only, which forwards it once (a
  // second SIGINT makes mpirun abort at once, leaving its workers behind).
  const child = spawn('mpirun', args, { cwd: options.cwd ?? process.cwd(), env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  // mpirun tags what it forwards (--tag-output), so each rank's lines are rebuilt whole before they
  // are written: without that, a line a rank wrote in two pieces comes out cut by other ranks'.
  // Worker lines (tagged by the wrapper) stream through; mpirun's own messages on stderr wait for
  // the failure report.
  const out = new MpirunOutputJoiner(tag);
  const err = new MpirunOutputJoiner(tag);
  const held: string[] = [];
  const toStdout = (lines: RankLine[]): void => {
    if (lines.length > 0) handoff.stdout.write(withNewline(lines));
  };
  const toStderr = (lines: RankLine[]): void => {
    const ranks = lines.filter((l) => l.rank !== undefined);
    if (ranks.length > 0) stderr.write(withNewline(ranks));
    for (const { rank, line } of lines) if (rank === undefined) held.push(line.toString('utf8'));
  };
  (child.stdout as Readable).on('data', (chunk: Buffer) => toStdout(out.push(chunk)));
  (child.stderr as Readable).on('data', (chunk: Buffer) => toStderr(err.push(chunk)));
  let interrupted: NodeJS.Signals | undefined;
  const stop = (signal: NodeJS.Signals): void => {
    interrupted ??= signal;
    child.kill(signal);
  };
  const handled: NodeJS.Signals[] = options.handleSignals === false ? [] : ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of handled) process.on(signal, stop);
  try {
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once('error', (error) => reject(new LaunchError(`Expected to start mpirun but received: ${error.message}`, { cause: error })));
      child.once('close', (c, s) => resolve([c, s]));
    });
    toStdout(out.flush());
    toStderr(err.flush());
    const failure = code === 0 || interrupted !== undefined ? undefined : await store.readFailure();
    if (failure !== undefined) {
      const tail = await store.readFailureTail();
      const { rank, host } = failure;
      stderr.write(`kolorun: rank ${rank} on ${host} failed first: ${describeExit({ code: failure.exitCode, signal: failure.signal })}\n`);
      stderr.write(tail.length === 0 ? `kolorun: rank ${rank} wrote nothing to stderr\n` : `kolorun: last lines of rank ${rank}'s stderr:\n${tail.join('\n')}\n`);
    }
    if (held.length > 0) stderr.write(`${held.join('\n')}\n`);
    if (interrupted !== undefined) return 128 + constants.signals[interrupted];
    if (failure !== undefined) return failure.signal !== null ? 1 : (failure.exitCode ?? 1);
    if (code !== 0) stderr.write(`kolorun: mpirun ${signal !== null ? `was killed by ${signal}` : `exited with code ${code}`} before any worker recorded a failure; see its message above\n`);
    return code ?? 1;
  } finally {
    for (const signal of handled) process.off(signal, stop);
  }
}
