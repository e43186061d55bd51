import { Command, CommanderError } from 'commander';
import { deviceAndSshValueFlags, gpusOf, sshOptionsOf } from './device-and-ssh-flags.js';
import { addElasticLimitFlags, cooldownRangeFlag, elasticLimitsOf, elasticLimitValueFlags, joinCooldownRange } from './elastic-flags.js';
import { checkElastic } from './elastic.js';
import { addHorovodFlags, horovodOptions, horovodValueFlags } from './horovod-flags.js';
import { parseHostList, readHostfile, type HostSlots } from './hosts.js';
import { LAUNCH_DEFAULTS, type LaunchOptions } from './launch-options.js';
import { addTorchrunFlags, torchrunOptions, torchrunSpelling, torchrunValueFlags } from './torchrun-flags.js';
import { UsageError } from './usage-error.js';

const example = 'e.g. kolorun -np 2 node train.js';
/** Flags that take a value, so the argv scan below can find the first positional. */
const valueFlags = new Set(['-n', '--np', '-H', '--hosts', '--hostfile', '--start-timeout', '--output-filename',
  '--grace-period', '--nnodes', '--node-rank', '--master-addr', '--master-port', '--min-np', '--max-np', '--host-discovery-script', ...elasticLimitValueFlags, ...horovodValueFlags, ...torchrunValueFlags, ...deviceAndSshValueFlags]);

/** Rewrites Open MPI/Horovod spellings (`-np 2`, `--num-proc 2`, `-hostfile f`) before commander sees them. */
function normalizeArgv(argv: readonly string[]): string[] {
  const out = [...argv];
  for (let i = 0; i < out.length; i++) {
    const token = out[i] as string;
    if (token === '--' || !token.startsWith('-') || token === '-') break;
    if (token === '-np' || token === '--num-proc') out[i] = '--np';
    else if (token.startsWith('-np=')) out[i] = `--np=${token.slice(4)}`;
    else if (token === '-hostfile') out[i] = '--hostfile';
    else if (token === cooldownRangeFlag || token.startsWith(`${cooldownRangeFlag}=`)) joinCooldownRange(out, i);
    else out[i] = torchrunSpelling(token);
    if (valueFlags.has(out[i] as string)) i++;
  }
  return out;
}

function integer(text: string | undefined, flag: string, min: number, hint: string): number {
  if (text === undefined || !/^\d+$/.test(text) || Number(text) < min) {
    const received = text === undefined ? 'nothing' : JSON.stringify(text);
    const what = min === 0 ? 'a non-negative integer' : 'a positive integer';
    throw new UsageError(`Expected ${what} for ${flag} but received ${received}; ${hint}`);
  }
  return Number(text);
}

function seconds(text: string, flag: string): number {
  if (!/^\d+(\.\d+)?$/.test(text)) {
    throw new UsageError(`Expected a number of seconds for ${flag} but received ${JSON.stringify(text)}; e.g. ${flag} 30`);
  }
  return Math.round(Number(text) * 1000);
}

function program(): Command {
  const elastic = new Command('kolorun')
    .usage('-np <count> [options] <command...>')
    .description('Start Kolo workers on this machine, over ssh (-H/--hostfile) or as one node of a multi-node job.')
    .option('-n, --np <count>', 'number of workers (on this node with --nnodes); also -np')
    .option('-H, --hosts <list>', 'hosts and slots in rank order, e.g. node1:4,node2:4')
    .option('--hostfile <path>', 'file with one "host slots=N" per line')
    .option('--start-timeout <seconds>', 'time for remote hosts to answer ssh, or node 0 to accept', '30')
    .option('--output-filename <dir>', 'also write <dir>/rank.<r>/stdout and stderr')
    .option('--verbose', 'print placement and lifecycle events')
    .option('--grace-period <seconds>', 'after a failure, time the others get to exit before SIGTERM', '10')
    .option('--nnodes <count>', 'number of nodes of a multi-node job (no ssh)')
    .option('--node-rank <index>', 'index of this node, 0 … nnodes-1')
    .option('--master-addr <address>', "address of node 0's store (also advertised in -H jobs)")
    .option('--master-port <port>', "port of node 0's store")
    .option('--min-np <count>', 'elastic: keep training while at least this many workers are left')
    .option('--max-np <count>', 'elastic: most workers the job may have (default -np)')
    .option('--host-discovery-script <script>', 'elastic: run every second; prints host:slots lines, free slots get new workers up to --max-np');
  const cmd = addElasticLimitFlags(elastic)
    .option('-p, --ssh-port <port>', 'ssh port of the remote hosts (-H/--hostfile)')
    .option('-i, --ssh-identity-file <path>', 'private key ssh uses for the remote hosts')
    .option('--gpus <auto|list>', 'one GPU per worker via CUDA_VISIBLE_DEVICES: auto = local rank, or e.g. 0,1,2,3');
  return addTorchrunFlags(addHorovodFlags(cmd))
    .argument('[command...]', 'worker command and its arguments')
    .passThroughOptions()
    .exitOverride()
    .configureOutput({ outputError: () => {} });
}

function elasticOf(opts: Record<string, string | undefined>, np: number): Pick<LaunchOptions, 'elastic'> {
  const limits = elasticLimitsOf(opts, (text, flag, hint) => integer(text, flag, 0, hint));
  if (opts.minNp === undefined && opts.maxNp === undefined && opts.hostDiscoveryScript === undefined) return {};
  const minNp = opts.minNp === undefined ? np : integer(opts.minNp, '--min-np', 1, 'e.g. --min-np 2');
  const maxNp = opts.maxNp === undefined ? np : integer(opts.maxNp, '--max-np', 1, 'e.g. --max-np 4');
  const script = opts.hostDiscoveryScript;
  return { elastic: checkElastic({ minNp, maxNp, ...(script !== undefined && { hostDiscoveryScript: script }), ...limits }, np) };
}

function hostsOf(opts: Record<string, string | undefined>): HostSlots[] | undefined {
  if (opts.hosts !== undefined && opts.hostfile !== undefined) {
    throw new UsageError('Expected either -H or --hostfile but received both; pass one of them');
  }
  if (opts.hosts !== undefined) return parseHostList(opts.hosts);
  if (opts.hostfile !== undefined) return readHostfile(opts.hostfile);
  return undefined;
}

/**
 * Parses kolorun's command line (without `node` and the script) into {@link LaunchOptions}.
 * Options stop at the first positional, so `kolorun -np 2 node x.js --foo` passes `--foo` to x.js.
 * Throws {@link UsageError} with a one-line message; `--help` throws commander's exit-0 error.
 *
 * @example
 * ```ts
 * parseCommandLine(['-np', '2', 'node', 'train.js']).np; // 2
 * ```
 */
export function parseCommandLine(argv: readonly string[]): LaunchOptions {
  const cmd = program();
  try {
    cmd.parse(normalizeArgv(argv), { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError && error.exitCode !== 0) {
      const text = error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
      throw new UsageError(`${text}; run kolorun --help for usage`);
    }
    throw error;
  }
  const opts = cmd.opts<Record<string, string | undefined>>();
  const horovod = horovodOptions(cmd.opts<Record<string, string | boolean | undefined>>());
  const { np: nprocPerNode, ...torchrunNodes } = torchrunOptions(cmd.opts<Record<string, string | boolean | undefined>>());
  Object.assign(opts, torchrunNodes);
  const np = nprocPerNode ?? integer(opts.np, '-np', 1, `pass the number of workers, ${example}`);
  const command = (cmd.processedArgs[0] ?? []) as string[];
  if (command.length === 0) {
    throw new UsageError(`Expected a command to run after the options but received nothing; ${example}`);
  }
  const hosts = hostsOf(opts);
  const multi = opts.nnodes ?? opts.nodeRank;
  if (multi !== undefined && hosts !== undefined) {
    throw new UsageError('Expected either -H/--hostfile (ssh) or --nnodes (one kolorun per node) but received both; pass one of them');
  }
  if (opts.nnodes !== undefined && opts.nnodes !== '1' && opts.masterAddr === undefined) {
    throw new UsageError(`Expected --master-addr (node 0's address) for --nnodes ${opts.nnodes} but received nothing; pass the same --master-addr and --master-port on every node`);
  }
  const port = opts.masterPort === undefined ? undefined : integer(opts.masterPort, '--master-port', 1, 'e.g. --master-port 29500');
  if (port !== undefined && port > 65535) {
    throw new UsageError(`Expected a port from 1 to 65535 for --master-port but received "${opts.masterPort}"`);
  }
  const ssh = sshOptionsOf(cmd.opts<Record<string, string | boolean | undefined>>());
  const gpus = gpusOf(opts);
  return {
    command,
    np,
    ...(ssh !== undefined && { ssh }),
    ...(gpus !== undefined && { gpus }),
    ...(hosts && { hosts }),
    ...(multi !== undefined && {
      nodes: {
        nnodes: integer(opts.nnodes, '--nnodes', 1, 'pass the number of nodes, e.g. --nnodes 2'),
        nodeRank: integer(opts.nodeRank, '--node-rank', 0, 'pass this node\'s index, e.g. --node-rank 0'),
        masterAddr: opts.masterAddr ?? '127.0.0.1',
        masterPort: port ?? LAUNCH_DEFAULTS.masterPort,
      },
    }),
    ...(multi === undefined && opts.masterAddr !== undefined && { storeAddr: opts.masterAddr }),
    ...(multi === undefined && port !== undefined && { storePort: port }),
    startTimeoutMs: seconds(opts.startTimeout as string, '--start-timeout'),
    gracePeriodMs: seconds(opts.gracePeriod as string, '--grace-period'),
    ...(opts.outputFilename !== undefined && { outputDir: opts.outputFilename }),
    verbose: Boolean(opts.verbose),
    ...horovod,
    ...elasticOf(opts, np),
  };
}
