import { KoloError, type KoloErrorOptions } from './kolo-error.js';

const marker = 'kolo.error.MismatchError';
const symbol = Symbol.for(marker);

/**
 * Ranks submitted the same request name with different dtype, shape, op, root or scale factors, or
 * reused a name that is still in flight (code `KOLO_DUPLICATE_NAME`). The request fails on every
 * rank; the engine keeps running.
 *
 * @example
 * ```ts
 * await allreduce(x, { name: 'w' }).catch((e) => MismatchError.isInstance(e) && console.error(e.message));
 * ```
 */
export class MismatchError extends KoloError {
  private readonly [symbol] = true;

  constructor(message: string, options: Omit<KoloErrorOptions, 'code'> & { code?: string } = {}) {
    super(message, { ...options, code: options.code ?? 'KOLO_MISMATCH' });
    this.name = 'MismatchError';
  }

  /**
   * True when `error` is a MismatchError from any copy of `@kolo/core`.
   *
   * @example
   * ```ts
   * if (MismatchError.isInstance(err)) console.error(err.message);
   * ```
   */
  static override isInstance(error: unknown): error is MismatchError {
    return KoloError.hasMarker(error, marker);
  }
}
