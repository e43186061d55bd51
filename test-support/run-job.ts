// Shared by every package's multi-process tests: start a job, collect `RESULT` lines.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
  // mpirun's merged, tagged stdout can splice two ranks' lines together when they print at the
  // same moment; each rank's own file (--output-filename) keeps its lines whole.
  const rankOutDir = mpi ? mkdtempSync(join(tmpdir(), 'kolo-mpirun-out-')) : '';
  const child = spawn(
    mpi ? 'mpirun' : process.execPath,
    mpi
      ? ['--oversubscribe', '--tag-output', '--output-filename', rankOutDir, '-np', String(np), ...(options.launcherArgs ?? []), ...command]
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
      const reported = mpi ? rankFiles(rankOutDir, 'stdout') ?? stdout : stdout;
      if (mpi) rmSync(rankOutDir, { recursive: true, force: true });
      resolve({ code, stdout: reported, stderr, results: parseResults(reported), elapsedMs: Date.now() - started });
    });
  });
}

/** Every rank's `stream` file under an mpirun --output-filename directory, rank by rank. */
function rankFiles(dir: string, stream: 'stdout' | 'stderr'): string | undefined {
  const job = join(dir, '1');
  if (!existsSync(job)) return undefined;
  const ranks = readdirSync(job).filter((d) => d.startsWith('rank.')).sort();
  return ranks.map((d) => (existsSync(join(job, d, stream)) ? readFileSync(join(job, d, stream), 'utf8') : '')).join('\n');
}

/** The `RESULT {"rank","key","value"}` lines in `stdout`, by key then rank. */
export function parseResults(stdout: string): Map<string, Map<number, unknown>> {
  const results = new Map<string, Map<number, unknown>>();
  for (const line of stdout.split('\n')) {
    const at = line.indexOf('RESULT ');
    if (at < 0) continue;
    const { rank, key, value } = JSON.parse(line.slice(at + 7)) as { rank: number; key: string; value: unknown };
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
