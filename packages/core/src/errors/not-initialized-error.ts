import { KoloError, type KoloErrorOptions } from './kolo-error.js';

const marker = 'kolo.error.NotInitializedError';
const symbol = Symbol.for(marker);

/**
 * The message every NotInitializedError carries, worded like Horovod's.
 *
 * @example
 * ```ts
 * new NotInitializedError().message === notInitializedMessage; // true
 * ```
 */
export const notInitializedMessage = 'Kolo has not been initialized; call init() first.';

/**
 * A Kolo function that needs a running engine was called before `init()` resolved or after
 * `shutdown()`. Thrown synchronously by the topology getters and the collectives.
 *
 * @example
 * ```ts
 * try { rank(); } catch (e) { if (NotInitializedError.isInstance(e)) await init(); }
 * ```
 */
export class NotInitializedError extends KoloError {
  private readonly [symbol] = true;

  constructor(options: Omit<KoloErrorOptions, 'code'> = {}) {
    super(notInitializedMessage, { ...options, code: 'KOLO_NOT_INITIALIZED' });
    this.name = 'NotInitializedError';
  }

  /**
   * True when `error` is a NotInitializedError from any copy of `@kolo/core`.
   *
   * @example
   * ```ts
   * if (NotInitializedError.isInstance(err)) await init();
   * ```
   */
  static override isInstance(error: unknown): error is NotInitializedError {
    return KoloError.hasMarker(error, marker);
  }
}
