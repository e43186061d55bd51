// Shared by every package's multi-process tests: start a job, collect `RESULT` lines.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = join(here, '..');
const kolorun = join(repoRoot, 'packages', 'launcher', 'dist', 'cli.js');

export interface JobResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** `RESULT {"rank","key","value"}` lines, by key then rank. */
  results: Map<string, Map<number, unknown>>;
  elapsedMs: number;
}

/**
 * How a job's workers are started: Kolo's launcher (Gloo), Open MPI's mpirun (MPI transport), or
 * `kolorun --mpi`, which hosts the store and hands the job to mpirun.
 */
export type Launcher = 'kolorun' | 'mpirun' | 'kolorun-mpi';

/** What {@link runJob} accepts besides the world size and the worker. */
export type RunJobOptions = { args?: string[]; env?: Record<string, string>; timeoutMs?: number; launcherArgs?: string[]; launcher?: Launcher };

/**
 * Runs `kolorun -np <np> [...launcherArgs] node <worker>` (or `mpirun --oversubscribe -np <np> …`),
 * `worker` being an absolute path, and collects what the workers reported.
 */
export function runJob(
  np: number,
  worker: string,
  options: RunJobOptions = {},
): Promise<JobResult> {
  const started = Date.now();
  const command = [process.execPath, worker, ...(options.args ?? [])];
  const mpi = options.launcher === 'mpirun';
  const child = spawn(
    mpi ? 'mpirun' : process.execPath,
    mpi
      ? ['--oversubscribe', '--tag-output', '-np', String(np), ...(options.launcherArgs ?? []), ...command]
      : [kolorun, ...(options.launcher === 'kolorun-mpi' ? ['--mpi'] : []), '-np', String(np), ...(options.launcherArgs ?? []), ...command],
    {
      env: { ...process.env, ...(mpi ? { OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1' } : {}), ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, results: parseResults(stdout), elapsedMs: Date.now() - started });
    });
  });
}

/**
 * Each rank's own output, rebuilt from mpirun's `--tag-output` stream. Open MPI forwards whatever
 * a rank's pty gave it, so a line written in two pieces arrives as two tagged fragments with other
 * ranks' fragments in between (`[1,0]<stdout>:RESULT {"ra[1,1]<stdout>:…`); every fragment is
 * tagged, so joining each rank's fragments in order restores its lines. Output without mpirun's
 * tags comes back as one stream.
 */
export function untagMpirun(stdout: string): string[] {
  const parts = stdout.split(/\[\d+,(\d+)\]<stdout>:/);
  if (parts.length === 1) return [stdout];
  const streams = new Map<string, string>([['untagged', parts[0] ?? '']]);
  for (let i = 1; i < parts.length; i += 2) {
    const rank = parts[i] as string;
    streams.set(rank, (streams.get(rank) ?? '') + (parts[i + 1] ?? ''));
  }
  return [...streams.values()];
}

/** The `RESULT {"rank","key","value"}` lines in `stdout`, by key then rank. */
export function parseResults(stdout: string): Map<string, Map<number, unknown>> {
  const results = new Map<string, Map<number, unknown>>();
  for (const line of untagMpirun(stdout).flatMap((stream) => stream.split('\n'))) {
    const at = line.indexOf('RESULT ');
    if (at < 0) continue;
    let parsed: { rank: number; key: string; value: unknown };
    try {
      parsed = JSON.parse(line.slice(at + 7)) as typeof parsed;
    } catch {
      // A line cut by a crash: the rank's missing result names the problem (see perRank).
      continue;
    }
    const { rank, key, value } = parsed;
    if (!results.has(key)) results.set(key, new Map());
    results.get(key)!.set(rank, value);
  }
  return results;
}

/** The value each rank reported for `key`, in rank order; throws if a rank is missing. */
export function perRank(job: JobResult, key: string, size: number): unknown[] {
  const byRank = job.results.get(key);
  return Array.from({ length: size }, (_, r) => {
    if (!byRank?.has(r)) throw new Error(`rank ${r} reported no ${key}\nstdout:\n${job.stdout}\nstderr:\n${job.stderr}`);
    return byRank.get(r);
  });
}
