import { KoloError, type KoloErrorOptions } from './kolo-error.js';

const marker = 'kolo.error.ShutDownError';
const symbol = Symbol.for(marker);

/**
 * The engine has shut down: a rank called `shutdown()`, or a failure ended this generation.
 * Pending and later requests fail with it until `init()` starts a new generation.
 *
 * @example
 * ```ts
 * catch (e) { if (ShutDownError.isInstance(e)) await init(); }
 * ```
 */
export class ShutDownError extends KoloError {
  private readonly [symbol] = true;

  constructor(message: string, options: Omit<KoloErrorOptions, 'code'> & { code?: string } = {}) {
    super(message, { ...options, code: options.code ?? 'KOLO_SHUT_DOWN' });
    this.name = 'ShutDownError';
  }

  /**
   * True when `error` is a ShutDownError from any copy of `@kolo/core`.
   *
   * @example
   * ```ts
   * if (ShutDownError.isInstance(err)) console.error(err.message);
   * ```
   */
  static override isInstance(error: unknown): error is ShutDownError {
    return KoloError.hasMarker(error, marker);
  }
}
