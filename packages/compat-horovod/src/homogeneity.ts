import { allgather, localSize } from '@kolo/core';

/** The engine-wide name of the exchange `init()` runs to learn {@link isHomogeneous}. */
export const homogeneityRequestName = 'hvd.init.local_sizes';

let learning: Promise<void> | undefined;
let known: boolean | undefined;

/**
 * Learns whether every host runs the same number of ranks, by gathering every rank's local
 * size once per engine (a collective: every rank's `hvd.init()` runs it).
 *
 * @example
 * ```ts
 * await core.init(); await learnHomogeneity();
 * ```
 */
export function learnHomogeneity(): Promise<void> {
  learning ??= allgather(new Int32Array([localSize()]), { name: homogeneityRequestName }).then(
    ({ data }) => {
      known = data.every((n) => n === data[0]);
    },
    (error: unknown) => {
      learning = undefined;
      throw error;
    },
  );
  return learning;
}

/**
 * What {@link learnHomogeneity} found, or undefined before it finished.
 *
 * @example
 * ```ts
 * knownHomogeneity(); // true on a job with 2 ranks on each of 2 hosts
 * ```
 */
export function knownHomogeneity(): boolean | undefined {
  return known;
}

/**
 * Forgets what was learnt, for the next engine.
 *
 * @example
 * ```ts
 * forgetHomogeneity();
 * ```
 */
export function forgetHomogeneity(): void {
  learning = undefined;
  known = undefined;
}
