import type { NativeEngineConfig } from '@kolo/native';
import { availableParallelism } from 'node:os';
import { checkOptions } from '../validation/check-options.js';
import { expectInteger } from '../validation/checks.js';
import { configOptionKeys, type ConfigOptions, type Env } from './config-options.js';
import { defaultCallerSpinUs } from './defaults.js';
import { storeFromKoloEnv, storeFromOptions } from './explicit-store.js';
import { detectLauncher, type LauncherKind } from './launcher-env.js';
import { launcherStore, type StorePlan } from './launcher-store.js';
import { resolveJobId } from './resolve-job-id.js';
import { resolveTopology } from './resolve-topology.js';
import { resolveTuning } from './resolve-tuning.js';
import { resolveCallerStacks, resolveDiagnostics } from './resolve-diagnostics.js';
import { resolveAutotune } from './resolve-autotune.js';
import {
  resolveGpuDevice,
  resolveHierarchical,
  resolveSharedMemory,
  resolveSingleCopy,
  resolveTransport,
} from './resolve-transport.js';
import { failureKeyPrefix } from '../elastic/assignment.js';

/**
 * Options of `resolveConfig`: the init options plus the engine generation.
 *
 * @example
 * ```ts
 * resolveConfig({ generation: 2, timeoutMs: 60_000 });
 * ```
 */
export interface ResolveConfigOptions extends ConfigOptions {
  /** How many engines this process started before; scopes store keys (`gen<N>`). Default 0. */
  readonly generation?: number;
  /** Transports the loaded engine was built with (`capabilities().transports`); default Gloo only. */
  readonly builtTransports?: readonly string[];
}

/**
 * The resolved configuration: what the engine gets plus what the runtime must do around it.
 *
 * @example
 * ```ts
 * const { engine, launcher, hostStore }: ResolvedConfig = resolveConfig();
 * ```
 */
export interface ResolvedConfig extends Omit<StorePlan, 'store'> {
  /** Handed to `startEngine` as is. */
  readonly engine: NativeEngineConfig;
  /** The launcher whose environment was used. */
  readonly launcher: LauncherKind;
  /** The job id in store keys. */
  readonly jobId: string;
  /** Async calls capture the caller's stack up front (see `ConfigOptions.callerStacks`). */
  readonly callerStacks: boolean;
}

/**
 * Resolves the whole configuration in one place: explicit options > `KOLO_*` environment >
 * compatible launcher variables (horovodrun, Open MPI/MPICH, torchrun) > defaults, validating
 * every value with a message that names the option or variable. May create the store directory
 * (MPI) or a temporary one (single process).
 *
 * @example
 * ```ts
 * const { engine } = resolveConfig({ cycleTimeMs: 2 }, { KOLO_RANK: '0', KOLO_SIZE: '2', KOLO_STORE_PATH: '/shared/s' });
 * engine.storePrefix; // 'kolo/local/gen0'
 * ```
 */
export function resolveConfig(
  options: ResolveConfigOptions = {},
  env: Env = process.env,
): ResolvedConfig {
  const checked = checkOptions(options, {
    opName: 'init',
    allowed: [...configOptionKeys, 'generation', 'builtTransports'],
  });
  const generation = expectInteger(checked.generation ?? 0, { name: 'generation', min: 0 });
  const launcher = detectLauncher(env);
  const elastic = expectInteger(checked.elasticGeneration ?? 0, { name: 'elasticGeneration', min: 0 });
  // After a membership change the launcher's variables describe a job that no longer exists.
  const topology = resolveTopology(checked, { env, launcher: elastic > 0 ? 'none' : launcher });
  const { jobId, found } = resolveJobId(checked, { env, launcher });
  const explicit =
    checked.store !== undefined ? storeFromOptions(checked.store) : storeFromKoloEnv(env);
  const plan: StorePlan = explicit
    ? { store: explicit }
    : launcherStore({ env, launcher, topology, jobId, jobIdFound: found });
  const tuning = resolveTuning(checked, env);
  const engine: NativeEngineConfig = {
    ...topology,
    ...tuning,
    callerSpinUs: tuning.callerSpinUs ?? defaultCallerSpinUs(topology.localSize, availableParallelism()),
    ...resolveDiagnostics(checked, env),
    hierarchicalAllreduce: resolveHierarchical(checked, env),
    sharedMemory: resolveSharedMemory(checked, env),
    singleCopy: resolveSingleCopy(checked, env),
    transport: resolveTransport(checked, env, { launcher, built: checked.builtTransports ?? ['gloo'] }),
    gpuDevice: resolveGpuDevice(checked, env),
    autotune: resolveAutotune(checked, env),
    store: plan.store,
    storePrefix: elastic > 0 ? `kolo/${jobId}/elastic${elastic}` : `kolo/${jobId}/gen${generation}`,
    failureKeyPrefix: failureKeyPrefix(elastic),
  };
  return { ...plan, engine, launcher, jobId, callerStacks: resolveCallerStacks(checked, env) };
}
