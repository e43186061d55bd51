// Shared by the bench drivers (fusion, floor and phases here, e2e and memory in adapter-tfjs/bench,
// and scripts/bench.mjs): runs one worker script on N ranks and returns the `BENCH {json}` rows
// its ranks print, and runs a command.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const kolorun = join(root, 'packages', 'launcher', 'dist', 'cli.js');

/**
 * The environment that selects a bench transport: `shm` is Kolo's default single-host path
 * (shared memory under kolorun), `gloo` the same with KOLO_SHM=0, `mpi` and `nccl` by name.
 */
export function transportEnv(transport) {
  const base = baseTransport(transport);
  const mode = transport.endsWith('-sync') ? { KOLO_BENCH_SYNC: '1' } : {};
  if (base === 'shm') return { KOLO_TRANSPORT: 'gloo', KOLO_SHM: '1', ...mode };
  return { KOLO_TRANSPORT: base, KOLO_SHM: '0', ...mode };
}

/**
 * A bench column's transport without its `-sync` suffix (`shm-sync` is the shm column timed with
 * the blocking `allreduceSync`, the closest analogue of a blocking `MPI_Allreduce`).
 */
export function baseTransport(transport) {
  return transport.replace(/-sync$/, '');
}

/**
 * Runs `script` on `np` ranks (shm or Gloo under kolorun, or `transport: 'mpi'` under mpirun) with
 * KOLO_BENCH_JSON=1 and `env`; `nodeArgs` go to node before the script, `args` after it.
 * Returns every `BENCH {json}` row in output order; exits the process when the job fails.
 */
export function launchRows({ script, np, transport = 'gloo', env = {}, nodeArgs = [], args = [] }) {
  const fullEnv = { ...process.env, ...transportEnv(transport), KOLO_BENCH_JSON: '1', ...env };
  const node = [process.execPath, ...nodeArgs, script, ...args];
  const [command, argv] =
    baseTransport(transport) === 'mpi'
      ? ['mpirun', ['--oversubscribe', '-np', String(np), ...node]]
      : [process.execPath, [kolorun, '-np', String(np), ...node]];
  if (baseTransport(transport) === 'mpi') Object.assign(fullEnv, { OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1' });
  const result = spawnSync(command, argv, { env: fullEnv, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) {
    console.error(`The ${transport} run of ${script} on ${np} ranks failed:\n${result.stdout}\n${result.stderr}`);
    process.exit(1);
  }
  return benchRows(result.stdout);
}

/** The `BENCH {json}` rows of a run's output, in order (a launcher's rank prefix before each is skipped). */
export function benchRows(stdout) {
  return stdout
    .split('\n')
    .filter((l) => l.includes('BENCH '))
    .map((l) => JSON.parse(l.slice(l.indexOf('BENCH ') + 6)));
}

/** Runs `command` and returns its stdout; exits, printing its output, where it fails. */
export function sh(command, args, env = process.env) {
  const result = spawnSync(command, args, { env, encoding: 'utf8' });
  if (result.status !== 0) {
    console.error(`${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
    process.exit(1);
  }
  return result.stdout;
}

/** Right-aligns `value` in `width` columns. */
export const pad = (value, width) => String(value).padStart(width);

/** The median of a non-empty array of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
