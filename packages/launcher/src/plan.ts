import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { visibleDevice } from './device-and-ssh-flags.js';
import { checkTransport } from './horovod-flags.js';
import { isLocalHost, type HostSlots } from './hosts.js';
import type { LaunchOptions, MultiNodeOptions } from './launch-options.js';
import { UsageError } from './usage-error.js';

/** Where one worker runs and which ranks it gets. */
export interface WorkerPlacement {
  readonly rank: number;
  readonly size: number;
  readonly localRank: number;
  readonly localSize: number;
  /** Index of this worker's host among the job's hosts (Horovod: the node index). */
  readonly crossRank: number;
  /** Number of hosts with at least one worker. */
  readonly crossSize: number;
  /** Host as the user named it; ssh target for remote workers. */
  readonly host: string;
  /** Started through ssh. */
  readonly remote: boolean;
  /** Address the worker's transport binds to (`KOLO_HOSTNAME`). */
  readonly bindAddress: string;
}

/** The resolved job: placements, store role and credentials. */
export interface JobPlan {
  readonly workers: readonly WorkerPlacement[];
  /** `host`: this launcher runs the store on `bind:port` (0 = ephemeral); `join`: node 0 runs it. */
  readonly store: { readonly role: 'host'; readonly bind: string; readonly port: number } | { readonly role: 'join' };
  /** Address workers (and other launchers) use to reach the store. */
  readonly storeAddr: string;
  readonly secret: string;
  readonly jobId: string;
  readonly nodes: MultiNodeOptions | undefined;
}

const loopback = (addr: string): boolean => addr === 'localhost' || addr.startsWith('127.') || addr === '::1';

/**
 * Fills hosts with ranks in order of their slots; hosts left without a worker are dropped.
 * `bindAddress` is the host name; {@link planJob} replaces it for local workers.
 *
 * @example
 * ```ts
 * placeWorkers([{ host: 'a', slots: 2 }, { host: 'b', slots: 2 }], 3).map((w) => w.host); // ['a', 'a', 'b']
 * ```
 */
export function placeWorkers(hosts: readonly HostSlots[], np: number): WorkerPlacement[] {
  const total = hosts.reduce((sum, h) => sum + h.slots, 0);
  if (total < np) {
    const list = hosts.map((h) => `${h.host}:${h.slots}`).join(',');
    throw new UsageError(`Expected at least ${np} slots for -np ${np} but received ${total} (${list}); add hosts or slots to -H/--hostfile, or lower -np`);
  }
  const used: { host: string; count: number }[] = [];
  let left = np;
  for (const h of hosts) {
    if (left === 0) break;
    const count = Math.min(h.slots, left);
    used.push({ host: h.host, count });
    left -= count;
  }
  return used.flatMap(({ host, count }, crossRank) =>
    Array.from({ length: count }, (_, localRank) => ({
      rank: used.slice(0, crossRank).reduce((sum, u) => sum + u.count, 0) + localRank,
      size: np,
      localRank,
      localSize: count,
      crossRank,
      crossSize: used.length,
      host,
      remote: !isLocalHost(host),
      bindAddress: host,
    })),
  );
}

function planNodes(options: LaunchOptions, nodes: MultiNodeOptions, env: NodeJS.ProcessEnv): JobPlan {
  const { nnodes, nodeRank, masterAddr, masterPort } = nodes;
  if (!Number.isInteger(nnodes) || nnodes < 1) throw new UsageError(`Expected a positive integer for --nnodes but received ${nnodes}`);
  if (!Number.isInteger(nodeRank) || nodeRank < 0 || nodeRank >= nnodes) {
    throw new UsageError(`Expected an integer from 0 to ${nnodes - 1} for --node-rank but received ${nodeRank}`);
  }
  if (!Number.isInteger(masterPort) || masterPort < 1 || masterPort > 65535) {
    throw new UsageError(`Expected a port from 1 to 65535 for --master-port but received ${masterPort}`);
  }
  const envSecret = env.KOLO_JOB_SECRET;
  if (nnodes > 1 && !envSecret) {
    throw new UsageError(`Expected KOLO_JOB_SECRET in the environment for --nnodes ${nnodes} but received nothing; export the same secret on every node, e.g. KOLO_JOB_SECRET=$(openssl rand -hex 32) generated once`);
  }
  const secret = envSecret || randomBytes(32).toString('hex');
  const np = options.np;
  const bindAddress = nnodes === 1 ? '127.0.0.1' : env.KOLO_HOSTNAME || hostname();
  const workers = Array.from({ length: np }, (_, localRank) => ({
    rank: nodeRank * np + localRank,
    size: nnodes * np,
    localRank,
    localSize: np,
    crossRank: nodeRank,
    crossSize: nnodes,
    host: nnodes === 1 ? 'localhost' : hostname(),
    remote: false,
    bindAddress,
  }));
  const digest = createHash('sha256').update(`kolo-job|${secret}|${masterAddr}:${masterPort}`).digest('hex');
  return {
    workers,
    store: nodeRank === 0 ? { role: 'host', bind: loopback(masterAddr) ? '127.0.0.1' : '0.0.0.0', port: masterPort } : { role: 'join' },
    storeAddr: masterAddr,
    secret,
    jobId: env.KOLO_JOB_ID || digest.slice(0, 16),
    nodes,
  };
}

/**
 * Checks the options and resolves placements, the store's role and the job credentials.
 * Throws {@link UsageError} for anything the user must change.
 *
 * @example
 * ```ts
 * planJob({ command: ['node', 'x.js'], np: 2 }, {}).workers.length; // 2
 * ```
 */
export function planJob(options: LaunchOptions, env: NodeJS.ProcessEnv): JobPlan {
  if (!Number.isInteger(options.np) || options.np < 1) {
    throw new UsageError(`Expected a positive integer for -np but received ${String(options.np)}; pass the number of workers, e.g. kolorun -np 2 node train.js`);
  }
  if (!Array.isArray(options.command) || options.command.length === 0) {
    throw new UsageError('Expected a command to run after the options but received nothing; e.g. kolorun -np 2 node train.js');
  }
  checkTransport(options.transport, options);
  const plan = options.nodes !== undefined ? planNodes(options, options.nodes, env) : planHosts(options, env);
  // A --gpus list too short for some host fails here, before anything starts.
  for (const w of plan.workers) visibleDevice(options.gpus, w.localRank, w.localSize);
  return plan;
}

function planHosts(options: LaunchOptions, env: NodeJS.ProcessEnv): JobPlan {
  const hosts = options.hosts ?? [{ host: 'localhost', slots: options.np }];
  const placed = placeWorkers(hosts, options.np);
  const local = placed.every((w) => !w.remote);
  const localName = env.KOLO_HOSTNAME || hostname();
  // Remote peers cannot reach "localhost": in a multi-host job local workers bind the host name.
  const workers = placed.map((w) => ({ ...w, bindAddress: local ? '127.0.0.1' : w.remote ? w.host : localName }));
  return {
    workers,
    store: { role: 'host', bind: local ? '127.0.0.1' : '0.0.0.0', port: options.storePort ?? 0 },
    storeAddr: local ? '127.0.0.1' : (options.storeAddr ?? localName),
    secret: randomBytes(32).toString('hex'),
    jobId: randomBytes(8).toString('hex'),
    nodes: undefined,
  };
}
