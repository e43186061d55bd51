import type { NativeEngineConfig } from '@kolo/native';
import { invalidArgument } from '../validation/invalid-argument.js';
import type { ConfigOptions, Env } from './config-options.js';
import { envField, firstField, optionField, toInteger, type ConfigField } from './config-field.js';
import { launcherVariables, type LauncherKind, type TopologyKey } from './launcher-env.js';

/**
 * Where this process sits in the job: the engine configuration's placement fields (documented
 * there).
 *
 * @example
 * ```ts
 * const { rank, size }: Topology = resolveConfig().engine;
 * ```
 */
export type Topology = Pick<NativeEngineConfig, 'rank' | 'size' | 'localRank' | 'localSize' | 'crossRank' | 'crossSize'>;

/**
 * Resolves and validates the topology: explicit options, then the launcher's variables. Missing
 * fields default to one process (`size` 1), one host (`localRank = rank`, `localSize = size`),
 * and contiguous ranks per host (`crossRank = floor(rank / localSize)`).
 *
 * @example
 * ```ts
 * resolveTopology({}, { env: { KOLO_RANK: '1', KOLO_SIZE: '2' }, launcher: 'kolo' });
 * // { rank: 1, size: 2, localRank: 1, localSize: 2, crossRank: 0, crossSize: 1 }
 * ```
 */
export function resolveTopology(
  options: ConfigOptions,
  context: { readonly env: Env; readonly launcher: LauncherKind },
): Topology {
  const table = context.launcher === 'none' ? {} : launcherVariables[context.launcher];
  const field = (key: TopologyKey): ConfigField | undefined => {
    const option = optionField(options, key);
    const env = envField(context.env, table[key] ?? []);
    if (option !== undefined && env !== undefined && String(option.value) !== String(env.value)) {
      // The launcher decided the job's shape; an option that disagrees would hang the rendezvous.
      throw invalidArgument({
        what: `${key} ${env.value} as the launcher set it (${env.name}), or no ${key} option`,
        name: key,
        value: option.value,
        kind: 'range',
      });
    }
    return firstField(option, env);
  };
  const read = (key: TopologyKey, min: number, max: number, fallback: number): number => {
    const found = field(key);
    return found === undefined ? fallback : toInteger(found, { min, max });
  };
  const size = read('size', 1, Infinity, 1);
  const rank = read('rank', 0, size - 1, 0);
  const localSize = read('localSize', 1, size, size);
  const localRank = read(
    'localRank',
    0,
    localSize - 1,
    localSize === size ? rank : rank % localSize,
  );
  const crossSize = read('crossSize', 1, size, Math.ceil(size / localSize));
  const crossRank = read('crossRank', 0, crossSize - 1, Math.floor(rank / localSize));
  return { rank, size, localRank, localSize, crossRank, crossSize };
}
