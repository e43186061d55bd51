import type { Writable } from 'node:stream';
import type { ElasticOptions } from './elastic.js';
import type { HostSlots } from './hosts.js';
import type { SshOptions } from './remote-command.js';

/** A torchrun-style multi-node job: one launcher per node, no ssh. */
export interface MultiNodeOptions {
  /** Number of nodes (launchers) in the job. */
  readonly nnodes: number;
  /** This node's index, 0 … nnodes-1; node 0 hosts the store. */
  readonly nodeRank: number;
  /** Address every node uses to reach node 0's store. */
  readonly masterAddr: string;
  /** Port of node 0's store. */
  readonly masterPort: number;
}

/** Everything {@link launch} needs; the `kolorun` flags map one to one. */
export interface LaunchOptions {
  /** The worker command and its arguments, e.g. `['node', 'train.js', '--epochs', '3']`. */
  readonly command: readonly string[];
  /** Number of workers (on this node, with `nodes`). `-np`. */
  readonly np: number;
  /** Hosts and slots; ranks fill them in order. Omit to run every worker on this machine. `-H`/`--hostfile`. */
  readonly hosts?: readonly HostSlots[];
  /** Join a multi-node job started with the same options on every node. `--nnodes` etc. */
  readonly nodes?: MultiNodeOptions;
  /** Address workers use to reach the store in an ssh (-H) job; default `os.hostname()`. `--master-addr`. */
  readonly storeAddr?: string;
  /** Fixed store port for single-launcher jobs; default an ephemeral port. `--master-port`. */
  readonly storePort?: number;
  /** How long remote hosts may take to answer ssh, or node 0's store to accept node I's launcher. `--start-timeout`. */
  readonly startTimeoutMs?: number;
  /** After the first failure, how long the other workers may take to exit on their own. `--grace-period`. */
  readonly gracePeriodMs?: number;
  /** Also write each rank's raw output to `<outputDir>/rank.<r>/stdout|stderr`. `--output-filename`. */
  readonly outputDir?: string;
  /** Print the placement and lifecycle events to stderr. `--verbose`. */
  readonly verbose?: boolean;
  /**
   * Transport the workers must use, recorded in their `KOLO_TRANSPORT`. `--gloo` / `--mpi`.
   * With `mpi`, kolorun hosts the store and hands the job to `mpirun` (which starts the workers,
   * locally or over its own ssh), as horovodrun does. Default: the engine's choice (Gloo).
   */
  readonly transport?: 'gloo' | 'mpi';
  /** Port and identity file for ssh to remote hosts. `-p/--ssh-port`, `-i/--ssh-identity-file`. */
  readonly ssh?: SshOptions;
  /**
   * One GPU per worker through `CUDA_VISIBLE_DEVICES`: `'auto'` gives each worker its local rank,
   * a list gives local rank i the i-th entry. Unset leaves the variable alone. `--gpus`.
   */
  readonly gpus?: 'auto' | readonly number[];
  /** Network interface the workers' transport binds, as `KOLO_IFACE` (e.g. `eth0`). `--network-interface`. */
  readonly networkInterface?: string;
  /** Chrome-trace timeline file rank 0 writes, as `KOLO_TIMELINE`. `--timeline-filename`. */
  readonly timelineFilename?: string;
  /** The launcher's environment: local workers inherit it; `KOLO_JOB_SECRET` is read from it. Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Working directory of the workers (remote ones `cd` to it). Default `process.cwd()`. */
  readonly cwd?: string;
  /** Where prefixed worker stdout goes. Default `process.stdout`. */
  readonly stdout?: Writable;
  /** Where prefixed worker stderr and kolorun's own messages go. Default `process.stderr`. */
  readonly stderr?: Writable;
  /** Forward SIGINT/SIGTERM received by this process to the workers. Default true. */
  readonly handleSignals?: boolean;
  /**
   * Elastic job: workers get `KOLO_ELASTIC=1` and `KOLO_WORKER_ID`, and a failure that leaves at
   * least `minNp` running re-ranks the survivors instead of stopping them. `--min-np`/`--max-np`.
   */
  readonly elastic?: ElasticOptions;
}

/** Defaults of {@link LaunchOptions}, in one place. */
export const LAUNCH_DEFAULTS = {
  startTimeoutMs: 30_000,
  gracePeriodMs: 10_000,
  /** Between SIGTERM (or a forwarded signal) and SIGKILL. */
  killAfterMs: 5_000,
  /** Lines of the failing rank's stderr in the failure report. */
  stderrTailLines: 20,
  /** Default store port for --nnodes jobs, as torchrun's. */
  masterPort: 29500,
} as const;
