import type { LaunchOptions } from './launch-options.js';
import type { JobPlan } from './plan.js';
import { sshOptionArgs } from './remote-command.js';

/** Variables mpirun forwards to every worker (with `-x`) when they are set, besides the job's own. */
const forwardedNames = /^(KOLO_|HOROVOD_|NCCL_|CUDA_|OMPI_MCA_)|^(PATH|LD_LIBRARY_PATH|NODE_OPTIONS|NODE_PATH)$/;

/** What {@link mpirunArgs} needs besides the options. */
export interface MpirunInput {
  readonly options: LaunchOptions;
  readonly plan: JobPlan;
  /** The environment mpirun runs with (the job's `KOLO_*` variables included). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `[node, mpi-worker.js]`: the wrapper that tags each rank's output and records its failure. */
  readonly wrapper: readonly string[];
  /** True when running as root (Open MPI refuses root without `--allow-run-as-root`). */
  readonly root: boolean;
}

/** `host:slots` for each host in rank order, as mpirun's `-H` takes it. */
function hostList(plan: JobPlan): string {
  const counts = new Map<string, number>();
  for (const w of plan.workers) counts.set(w.host, (counts.get(w.host) ?? 0) + 1);
  return [...counts].map(([host, n]) => `${host}:${n}`).join(',');
}

/**
 * The `mpirun` arguments for a `kolorun --mpi` job, built as horovodrun builds its own: every
 * host with its slot count, no binding, slot-by-slot mapping, the job's variables forwarded by
 * name with `-x` (values never appear on the command line, so `ps` does not show the secret),
 * every forwarded fragment tagged with its rank (so kolorun can rebuild each rank's lines whole),
 * ssh port and identity through `plm_rsh_args`, and the network interface for both MPI's data
 * (`btl_tcp_if_include`) and its runtime (`oob_tcp_if_include`).
 *
 * @example
 * ```ts
 * mpirunArgs({ options: { command: ['node', 'x.js'], np: 2, transport: 'mpi' }, plan, env,
 *   wrapper: ['/usr/bin/node', '/k/mpi-worker.js'], root: false });
 * // ['--bind-to', 'none', '--map-by', 'slot', '--tag-output', '-np', '2', '-H', 'localhost:2', '-x', 'KOLO_JOB_ID', …,
 * //  '/usr/bin/node', '/k/mpi-worker.js', 'node', 'x.js']
 * ```
 */
export function mpirunArgs(input: MpirunInput): string[] {
  const { options, plan, env } = input;
  const exported = Object.keys(env).filter((name) => forwardedNames.test(name) && env[name] !== undefined).sort();
  const ssh = options.ssh === undefined ? [] : sshOptionArgs(options.ssh).slice(2);
  const nic = options.networkInterface;
  return [
    ...(input.root ? ['--allow-run-as-root'] : []),
    '--bind-to', 'none',
    '--map-by', 'slot',
    '--tag-output',
    '-np', String(plan.workers.length),
    '-H', hostList(plan),
    ...exported.flatMap((name) => ['-x', name]),
    ...(ssh.length > 0 ? ['--mca', 'plm_rsh_args', ssh.join(' ')] : []),
    ...(nic !== undefined ? ['--mca', 'btl_tcp_if_include', nic, '--mca', 'oob_tcp_if_include', nic] : []),
    ...input.wrapper,
    ...options.command,
  ];
}
