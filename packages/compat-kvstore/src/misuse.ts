/**
 * The `code` of errors for calls made in the wrong state (e.g. saving optimizer states before
 * `setOptimizer`).
 *
 * @example
 * ```ts
 * if ((err as { code?: string }).code === invalidStateCode) console.error(err.message);
 * ```
 */
export const invalidStateCode = 'ERR_KOLO_INVALID_STATE';

/**
 * An Error with {@link invalidStateCode} for a call the object's state does not allow. Throw it.
 *
 * @example
 * ```ts
 * throw misuse('saveOptimizerStates() needs an optimizer; call setOptimizer() first.');
 * ```
 */
export function misuse(message: string): Error {
  return Object.assign(new Error(message), { code: invalidStateCode });
}
