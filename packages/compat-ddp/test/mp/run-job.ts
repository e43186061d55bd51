import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, '..', '..', '..', '..');
const kolorun = join(repoRoot, 'packages', 'launcher', 'dist', 'cli.js');

/** What a job printed, and its `RESULT {"rank","key","value"}` lines by key then rank. */
export interface JobResult {
  code: number | null;
  stdout: string;
  stderr: string;
  results: Map<string, Map<number, unknown>>;
}

/** The path of a worker script in ./workers. */
export const worker = (name: string): string => join(here, 'workers', name);

function collect(child: ReturnType<typeof spawn>, timeoutMs: number): Promise<JobResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, results: parseResults(stdout) });
    });
  });
}

/** Runs `kolorun -np <np> node workers/<name> ...args` and collects what the workers reported. */
export function runJob(np: number, name: string, options: { args?: string[]; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<JobResult> {
  const child = spawn(process.execPath, [kolorun, '-np', String(np), process.execPath, worker(name), ...(options.args ?? [])], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return collect(child, options.timeoutMs ?? 120_000);
}

/** Starts one worker process by hand (no launcher) with `env` on top of this environment minus KOLO_*. */
export function runProcess(name: string, options: { args?: string[]; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<JobResult> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(KOLO_|HOROVOD_|OMPI_|PMI_|RANK$|WORLD_SIZE$|LOCAL_RANK$|MASTER_)/.test(k)));
  const child = spawn(process.execPath, [worker(name), ...(options.args ?? [])], { env: { ...base, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return collect(child, options.timeoutMs ?? 60_000);
}

/** The `RESULT {"rank","key","value"}` lines in `stdout`, by key then rank. */
export function parseResults(stdout: string): Map<string, Map<number, unknown>> {
  const results = new Map<string, Map<number, unknown>>();
  for (const line of stdout.split('\n')) {
    const at = line.indexOf('RESULT ');
    if (at < 0) continue;
    const { rank, key, value } = JSON.parse(line.slice(at + 7)) as { rank: number; key: string; value: unknown };
    if (!results.has(key)) results.set(key, new Map());
    results.get(key)?.set(rank, value);
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
