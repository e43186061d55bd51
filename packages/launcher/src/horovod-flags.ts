import type { Command } from 'commander';
import type { LaunchOptions } from './launch-options.js';
import { UsageError } from './usage-error.js';

/** horovodrun flags (besides `-np`, `-H`, `--hostfile`, ...) that take a value. */
export const horovodValueFlags: readonly string[] = ['--network-interface', '--network-interfaces', '--timeline-filename'];

/**
 * Adds horovodrun's transport, network and timeline flags to kolorun's command.
 *
 * @example
 * ```ts
 * addHorovodFlags(new Command('kolorun')).parse(['--gloo'], { from: 'user' });
 * ```
 */
export function addHorovodFlags(cmd: Command): Command {
  return cmd
    .option('--gloo', 'run the workers over Gloo (the default; sets KOLO_TRANSPORT=gloo)')
    .option('--mpi', 'hand the job to mpirun and run the workers over MPI (needs Open MPI or MPICH)')
    .option('--network-interface <nic>', 'network interface the workers use, e.g. eth0 (sets KOLO_IFACE)')
    .option('--network-interfaces <list>', 'as horovodrun: comma-separated interfaces; the first one is used')
    .option('--timeline-filename <path>', 'rank 0 writes a Chrome-trace timeline there (sets KOLO_TIMELINE)');
}

function interfaceOf(opts: Record<string, string | boolean | undefined>): string | undefined {
  const one = opts.networkInterface as string | undefined;
  const list = opts.networkInterfaces as string | undefined;
  if (one !== undefined && list !== undefined) {
    throw new UsageError('Expected either --network-interface or --network-interfaces but received both; pass one of them');
  }
  if (one === undefined && list === undefined) return undefined;
  const [flag, nic] = one !== undefined ? ['--network-interface', one] : ['--network-interfaces', list?.split(',')[0]?.trim()];
  if (nic === undefined || !/^[A-Za-z0-9_.:@-]+$/.test(nic)) {
    throw new UsageError(`Expected a network interface name for ${flag} but received ${JSON.stringify(one ?? list)}; e.g. ${flag} eth0`);
  }
  return nic;
}

/**
 * Reads the horovodrun flags out of commander's parsed options.
 *
 * @example
 * ```ts
 * horovodOptions({ gloo: true, timelineFilename: 't.json' }); // { transport: 'gloo', timelineFilename: 't.json' }
 * ```
 */
export function horovodOptions(
  opts: Record<string, string | boolean | undefined>,
): Pick<LaunchOptions, 'transport' | 'networkInterface' | 'timelineFilename'> {
  if (opts.gloo && opts.mpi) {
    throw new UsageError('Expected either --gloo or --mpi but received both; pass one of them');
  }
  const timeline = opts.timelineFilename as string | undefined;
  if (timeline !== undefined && timeline.trim() === '') {
    throw new UsageError('Expected a file path for --timeline-filename but received ""; e.g. --timeline-filename timeline.json');
  }
  const iface = interfaceOf(opts);
  return {
    ...(opts.gloo && { transport: 'gloo' as const }),
    ...(opts.mpi && { transport: 'mpi' as const }),
    ...(iface !== undefined && { networkInterface: iface }),
    ...(timeline !== undefined && { timelineFilename: timeline }),
  };
}

/**
 * Throws {@link UsageError} for a transport kolorun cannot launch, or one that contradicts the
 * other options; returns the one to record.
 *
 * @example
 * ```ts
 * checkTransport('mpi'); // 'mpi'
 * ```
 */
export function checkTransport(
  transport: unknown,
  options: Pick<LaunchOptions, 'nodes' | 'elastic' | 'gpus'> = {},
): 'gloo' | 'mpi' | undefined {
  if (transport === undefined || transport === 'gloo') return transport;
  if (transport !== 'mpi') {
    throw new UsageError(`Expected 'gloo' or 'mpi' for transport but received ${JSON.stringify(transport)}; pass --gloo, --mpi or nothing`);
  }
  const clash = options.nodes !== undefined ? '--nnodes' : options.elastic !== undefined ? '--min-np/--max-np' : options.gpus !== undefined ? '--gpus' : undefined;
  if (clash !== undefined) {
    const why = clash === '--gpus'
      ? 'mpirun starts the workers, so kolorun cannot set their CUDA_VISIBLE_DEVICES; each worker uses its local rank\'s GPU (or KOLO_GPU_DEVICE)'
      : 'mpirun places every worker itself, from -H or --hostfile';
    throw new UsageError(`Expected --mpi without ${clash} but received both: ${why}; drop ${clash} or use --gloo`);
  }
  return 'mpi';
}
