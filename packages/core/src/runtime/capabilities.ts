import type { NativeBinding } from '@kolo/native';
import { getBinding } from './binding-source.js';
import { runtimeState } from './runtime-state.js';

/**
 * What this build of the native engine supports.
 *
 * @example
 * ```ts
 * const { transports, dtypes }: Capabilities = capabilities();
 * ```
 */
export type Capabilities = ReturnType<NativeBinding['capabilities']>;

/**
 * Transports, dtypes, ops and reductions compiled into the native engine. Works without
 * `init()` (it loads the addon); throws the loader's error when the addon is missing.
 *
 * @example
 * ```ts
 * if (capabilities().transports.includes('nccl')) console.log('GPU collectives available');
 * ```
 */
export function capabilities(): Capabilities {
  const binding = runtimeState.session?.running?.binding ?? getBinding();
  return binding.capabilities();
}
