import { KoloError, type KoloErrorOptions } from './kolo-error.js';

const marker = 'kolo.error.TimeoutError';
const symbol = Symbol.for(marker);

/**
 * A request or the rendezvous did not complete within `timeoutMs`, usually because some rank never submitted it.
 *
 * @example
 * ```ts
 * await barrier().catch((e) => { if (TimeoutError.isInstance(e)) console.error('a rank is stuck'); });
 * ```
 */
export class TimeoutError extends KoloError {
  private readonly [symbol] = true;

  constructor(message: string, options: Omit<KoloErrorOptions, 'code'> & { code?: string } = {}) {
    super(message, { ...options, code: options.code ?? 'KOLO_TIMEOUT' });
    this.name = 'TimeoutError';
  }

  /**
   * True when `error` is a TimeoutError from any copy of `@kolo/core`.
   *
   * @example
   * ```ts
   * if (TimeoutError.isInstance(err)) console.error(err.message);
   * ```
   */
  static override isInstance(error: unknown): error is TimeoutError {
    return KoloError.hasMarker(error, marker);
  }
}
