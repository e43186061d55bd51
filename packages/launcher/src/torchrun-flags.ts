import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import type { WorkerPlacement } from './plan.js';
import { UsageError } from './usage-error.js';
import type { JobEnvironment } from './worker-env.js';

/** torchrun flags (besides `--nnodes`, `--node-rank`, `--master-addr`, `--master-port`) that take a value. */
export const torchrunValueFlags: readonly string[] = ['--nproc-per-node'];

/** torchrun's underscore spellings, which it accepts next to the dashed ones. */
const underscored: Readonly<Record<string, string>> = {
  '--nproc_per_node': '--nproc-per-node',
  '--node_rank': '--node-rank',
  '--master_addr': '--master-addr',
  '--master_port': '--master-port',
};

/**
 * Rewrites torchrun's underscore spelling of a flag (`--nproc_per_node`, `--node_rank=1`, …) to
 * the dashed one kolorun parses; returns other tokens unchanged.
 *
 * @example
 * ```ts
 * torchrunSpelling('--master_port=29500'); // '--master-port=29500'
 * ```
 */
export function torchrunSpelling(token: string): string {
  const [flag = '', ...value] = token.split('=');
  const dashed = underscored[flag];
  return dashed === undefined ? token : [dashed, ...value].join('=');
}

/**
 * Adds torchrun's `--nproc-per-node` and `--standalone` to kolorun's command (`--nnodes`,
 * `--node-rank`, `--master-addr` and `--master-port` are kolorun's own).
 *
 * @example
 * ```ts
 * addTorchrunFlags(new Command('kolorun')).parse(['--standalone'], { from: 'user' });
 * ```
 */
export function addTorchrunFlags(cmd: Command): Command {
  return cmd
    .option('--nproc-per-node <count>', 'as torchrun: workers on this node (a number, or cpu/auto for one per CPU); same as -np')
    .option('--standalone', 'as torchrun: a single-node job with its own store on a free local port (the default without --nnodes)');
}

function nproc(text: string): number {
  if (text === 'cpu' || text === 'auto') return availableParallelism();
  if (!/^\d+$/.test(text) || Number(text) < 1) {
    throw new UsageError(`Expected a positive integer, cpu or auto for --nproc-per-node but received ${JSON.stringify(text)}; e.g. --nproc-per-node 2 (this launcher has no GPUs to count)`);
  }
  return Number(text);
}

/**
 * Reads torchrun's flags out of commander's options: the number of workers from
 * `--nproc-per-node` (undefined when absent), `--nnodes` in torchrun's `N` or `N:N` form
 * (`MIN:MAX` with MIN < MAX would be an elastic job, which kolorun does not run), and node rank
 * 0 for a one-node job without `--node-rank`. Throws a UsageError for `--nproc-per-node` with
 * `-np`, and for `--standalone` with more than one node.
 *
 * @example
 * ```ts
 * torchrunOptions({ nprocPerNode: '2', nnodes: '1:1' }); // { np: 2, nnodes: '1', nodeRank: '0' }
 * ```
 */
export function torchrunOptions(opts: Record<string, string | boolean | undefined>): {
  /** Workers on this node, from `--nproc-per-node`. */
  np?: number;
  /** Number of nodes, from `--nnodes` (`1` for `--standalone`). */
  nnodes?: string;
  /** This node's index, from `--node-rank` (`0` for a one-node job). */
  nodeRank?: string;
} {
  const text = opts.nprocPerNode as string | undefined;
  if (text !== undefined && opts.np !== undefined) {
    throw new UsageError('Expected either -np or --nproc-per-node but received both; pass one of them');
  }
  let nnodes = opts.nnodes as string | undefined;
  const range = nnodes === undefined ? null : /^(\d+):(\d+)$/.exec(nnodes);
  if (range !== null && range !== undefined) {
    if (range[1] !== range[2]) {
      throw new UsageError(`Expected a fixed number of nodes for --nnodes but received "${nnodes}"; kolorun runs no elastic jobs, pass e.g. --nnodes ${range[2]}`);
    }
    nnodes = range[1];
  }
  if (opts.standalone === true && nnodes !== undefined && nnodes !== '1') {
    throw new UsageError(`Expected --nnodes 1 with --standalone but received --nnodes ${nnodes}; drop --standalone for a multi-node job`);
  }
  // torchrun's --node-rank defaults to 0; kolorun asks for it, except in a one-node job.
  const nodeRank = nnodes === '1' && opts.nodeRank === undefined ? '0' : undefined;
  return { ...(text !== undefined && { np: nproc(text) }), ...(nnodes !== undefined && { nnodes }), ...(nodeRank !== undefined && { nodeRank }) };
}

/**
 * torchrun's worker variables, with the same values as the `KOLO_*` ones: `RANK`, `LOCAL_RANK`,
 * `WORLD_SIZE`, `LOCAL_WORLD_SIZE`, `GROUP_RANK` (the node index), `GROUP_WORLD_SIZE`, and
 * `MASTER_ADDR` / `MASTER_PORT` naming the job's store (as torchrun's agent store).
 *
 * @example
 * ```ts
 * torchrunEnv(placement, job).LOCAL_WORLD_SIZE; // '2'
 * ```
 */
export function torchrunEnv(worker: WorkerPlacement, job: JobEnvironment): Record<string, string> {
  return {
    RANK: String(worker.rank),
    LOCAL_RANK: String(worker.localRank),
    WORLD_SIZE: String(worker.size),
    LOCAL_WORLD_SIZE: String(worker.localSize),
    GROUP_RANK: String(worker.crossRank),
    GROUP_WORLD_SIZE: String(worker.crossSize),
    MASTER_ADDR: job.storeAddr,
    MASTER_PORT: String(job.storePort),
  };
}
