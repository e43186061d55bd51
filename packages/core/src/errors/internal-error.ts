import { KoloError, type KoloErrorOptions } from './kolo-error.js';

const marker = 'kolo.error.InternalError';
const symbol = Symbol.for(marker);

/**
 * An unexpected failure inside Kolo; please report it with the message and stack.
 *
 * @example
 * ```ts
 * throw new InternalError('engine returned no result for allreduce.w');
 * ```
 */
export class InternalError extends KoloError {
  private readonly [symbol] = true;

  constructor(message: string, options: Omit<KoloErrorOptions, 'code'> & { code?: string } = {}) {
    super(message, { ...options, code: options.code ?? 'KOLO_INTERNAL' });
    this.name = 'InternalError';
  }

  /**
   * True when `error` is a InternalError from any copy of `@kolo/core`.
   *
   * @example
   * ```ts
   * if (InternalError.isInstance(err)) console.error(err.message);
   * ```
   */
  static override isInstance(error: unknown): error is InternalError {
    return KoloError.hasMarker(error, marker);
  }
}
