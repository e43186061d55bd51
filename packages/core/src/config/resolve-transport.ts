import { envField, firstField, optionField, toInteger, toNumber, toText } from './config-field.js';
import type { ConfigOptions, Env } from './config-options.js';
import type { LauncherKind } from './launcher-env.js';
import { invalidArgument } from '../validation/invalid-argument.js';

/** The transports an engine can be asked for. */
export type TransportName = 'gloo' | 'mpi' | 'nccl';

const TRANSPORTS: readonly TransportName[] = ['gloo', 'mpi', 'nccl'];
// Horovod's HOROVOD_CPU_OPERATIONS names CPU backends only; NCCL is asked for by name.
const CPU_TRANSPORTS: readonly TransportName[] = ['gloo', 'mpi'];

/**
 * Picks the transport: the `transport` option > `KOLO_TRANSPORT` > `HOROVOD_CPU_OPERATIONS` >
 * MPI when the process was started by mpirun and this build has it > Gloo. NCCL is never picked
 * by default; a build without it rejects `init` with `KOLO_UNSUPPORTED`.
 *
 * @example
 * ```ts
 * resolveTransport({}, { KOLO_TRANSPORT: 'mpi' }, { launcher: 'kolo', built: ['gloo', 'mpi'] }); // 'mpi'
 * ```
 */
export function resolveTransport(
  options: ConfigOptions,
  env: Env,
  context: { readonly launcher: LauncherKind; readonly built: readonly string[] },
): TransportName {
  const field = firstField(optionField(options, 'transport'), envField(env, ['KOLO_TRANSPORT', 'HOROVOD_CPU_OPERATIONS']));
  if (field === undefined) {
    return context.launcher === 'mpi' && context.built.includes('mpi') ? 'mpi' : 'gloo';
  }
  const allowed = field.name === 'HOROVOD_CPU_OPERATIONS' ? CPU_TRANSPORTS : TRANSPORTS;
  const value = toText(field).toLowerCase();
  const match = allowed.find((t) => t === value);
  if (match === undefined) {
    const names = allowed.map((t) => `'${t}'`);
    const what = `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
    throw invalidArgument({ what, name: field.name, value: field.value });
  }
  return match;
}

/**
 * The CUDA device the NCCL transport uses: the `gpuDevice` option > `KOLO_GPU_DEVICE` > -1 (the
 * engine's default, `localRank % visible devices`). Other transports ignore it.
 *
 * @example
 * ```ts
 * resolveGpuDevice({}, { KOLO_GPU_DEVICE: '3' }); // 3
 * ```
 */
export function resolveGpuDevice(options: ConfigOptions, env: Env): number {
  const field = firstField(optionField(options, 'gpuDevice'), envField(env, ['KOLO_GPU_DEVICE']));
  return field === undefined ? -1 : toInteger(field, { min: 0 });
}

/** What `singleCopy` and `KOLO_SHM_SINGLE_COPY` accept. */
const singleCopyModes = ['auto', 'on', 'off'] as const;

/**
 * Whether shared-memory collectives may read the peers' memory with one copy: the `singleCopy`
 * option > `KOLO_SHM_SINGLE_COPY` > `auto` (where the kernel allows it and the trial at startup
 * finds it no slower). The variable also takes `1` (on) and `0` (off).
 *
 * @example
 * ```ts
 * resolveSingleCopy({}, { KOLO_SHM_SINGLE_COPY: '0' }); // 'off'
 * ```
 */
export function resolveSingleCopy(options: ConfigOptions, env: Env): 'auto' | 'on' | 'off' {
  const field = firstField(optionField(options, 'singleCopy'), envField(env, ['KOLO_SHM_SINGLE_COPY']));
  if (field === undefined) return 'auto';
  const fromEnv = field.name === 'KOLO_SHM_SINGLE_COPY';
  // The variable's text, lowercased, with 1 and 0 for on and off; the option as given.
  const value = fromEnv ? String(field.value).trim().toLowerCase().replace(/^1$/, 'on').replace(/^0$/, 'off') : field.value;
  const mode = singleCopyModes.find((m) => m === value);
  if (mode === undefined) {
    const what = fromEnv ? "'auto', 'on', 'off', '1' or '0'" : "'auto', 'on' or 'off'";
    throw invalidArgument({ what, name: field.name, value: field.value });
  }
  return mode;
}

/**
 * Whether allreduces go through the per-host hierarchy: the `hierarchicalAllreduce` option >
 * `KOLO_HIERARCHICAL_ALLREDUCE` > `HOROVOD_HIERARCHICAL_ALLREDUCE` (> 0 enables) > off. It only
 * takes effect when the job spans more than one host.
 *
 * @example
 * ```ts
 * resolveHierarchical({}, { HOROVOD_HIERARCHICAL_ALLREDUCE: '1' }); // true
 * ```
 */
export function resolveHierarchical(options: ConfigOptions, env: Env): boolean {
  const option = optionField(options, 'hierarchicalAllreduce');
  if (option !== undefined) {
    if (typeof option.value !== 'boolean') throw invalidArgument({ what: 'a boolean', name: option.name, value: option.value });
    return option.value;
  }
  const field = envField(env, ['KOLO_HIERARCHICAL_ALLREDUCE', 'HOROVOD_HIERARCHICAL_ALLREDUCE']);
  return field !== undefined && toNumber(field, { min: 0 }) > 0;
}

/**
 * Whether ranks on one host talk through shared memory: the `sharedMemory` option >
 * `KOLO_SHM` (0 disables) > on. It takes effect when every rank of the job is on one host
 * (and for the per-host stage of the hierarchical allreduce) with the Gloo transport; MPI and
 * NCCL keep their own intra-host paths. Turn it off to measure or debug Gloo alone.
 *
 * @example
 * ```ts
 * resolveSharedMemory({}, { KOLO_SHM: '0' }); // false
 * ```
 */
export function resolveSharedMemory(options: ConfigOptions, env: Env): boolean {
  const option = optionField(options, 'sharedMemory');
  if (option !== undefined) {
    if (typeof option.value !== 'boolean') throw invalidArgument({ what: 'a boolean', name: option.name, value: option.value });
    return option.value;
  }
  const field = envField(env, ['KOLO_SHM']);
  return field === undefined || toNumber(field, { min: 0 }) > 0;
}
