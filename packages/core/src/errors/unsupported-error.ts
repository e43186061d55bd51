import { KoloError, type KoloErrorOptions } from './kolo-error.js';

const marker = 'kolo.error.UnsupportedError';
const symbol = Symbol.for(marker);

/**
 * The request (op, dtype or reduction) or the configuration is not supported by this build or
 * transport. Check `capabilities()`.
 *
 * @example
 * ```ts
 * if (!capabilities().dtypes.includes('float16')) throw new UnsupportedError('float16 is not built in');
 * ```
 */
export class UnsupportedError extends KoloError {
  private readonly [symbol] = true;

  constructor(message: string, options: Omit<KoloErrorOptions, 'code'> & { code?: string } = {}) {
    super(message, { ...options, code: options.code ?? 'KOLO_UNSUPPORTED' });
    this.name = 'UnsupportedError';
  }

  /**
   * True when `error` is a UnsupportedError from any copy of `@kolo/core`.
   *
   * @example
   * ```ts
   * if (UnsupportedError.isInstance(err)) console.error(err.message);
   * ```
   */
  static override isInstance(error: unknown): error is UnsupportedError {
    return KoloError.hasMarker(error, marker);
  }
}
