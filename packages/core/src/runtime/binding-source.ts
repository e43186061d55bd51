import { loadNative, type NativeBinding } from '@kolo/native';

let override: NativeBinding | undefined;

/**
 * The native binding: the testing override when set, else the addon loaded by `@kolo/native`
 * (throws its `KOLO_NATIVE_MISSING` / `KOLO_NATIVE_DEPENDENCY` / `KOLO_NATIVE_ABI` error when the
 * addon is unusable).
 *
 * @example
 * ```ts
 * const { constants } = getBinding();
 * ```
 */
export function getBinding(): NativeBinding {
  return override ?? loadNative();
}

/**
 * Replaces the native binding for unit tests (pass undefined to restore). Not exported from the
 * package entry point; tests import it from this module.
 *
 * @example
 * ```ts
 * setBindingForTesting(createFakeBinding());
 * ```
 */
export function setBindingForTesting(binding: NativeBinding | undefined): void {
  override = binding;
}
