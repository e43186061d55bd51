const baseMarker = 'kolo.error';
const baseSymbol = Symbol.for(baseMarker);

/**
 * Fields every Kolo runtime error may carry besides its message.
 *
 * @example
 * ```ts
 * new KoloError('custom failure', { code: 'KOLO_INTERNAL', rank: 1 });
 * ```
 */
export interface KoloErrorOptions {
  /** Stable machine-readable code, e.g. `KOLO_MISMATCH`. */
  readonly code: string;
  /** The rank of this process when the error happened, when known. */
  readonly rank?: number;
  /** The full request name, e.g. `allreduce.grad`, when the error belongs to one request. */
  readonly opName?: string;
  /** The underlying error, e.g. the native rejection. */
  readonly cause?: unknown;
}

/**
 * Base class of every runtime failure Kolo reports. Use {@link KoloError.isInstance} instead of
 * `instanceof`: it also recognises errors created by another copy of `@kolo/core` (a marker
 * registered with `Symbol.for`, shared by all copies in one process).
 *
 * @example
 * ```ts
 * try { await allreduce(grad); }
 * catch (e) { if (KoloError.isInstance(e)) console.error(e.code, e.rank, e.opName); }
 * ```
 */
export class KoloError extends Error {
  private readonly [baseSymbol] = true;
  /** Stable machine-readable code, e.g. `KOLO_TIMEOUT`. */
  readonly code: string;
  /** This process's rank when the error happened, when known. */
  readonly rank: number | undefined;
  /** The request the error belongs to, when there is one. */
  readonly opName: string | undefined;

  constructor(message: string, options: KoloErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'KoloError';
    this.code = options.code;
    this.rank = options.rank;
    this.opName = options.opName;
  }

  /**
   * True when `error` is a Kolo error from any copy of this package.
   *
   * @example
   * ```ts
   * if (KoloError.isInstance(err)) process.exitCode = 2;
   * ```
   */
  static isInstance(error: unknown): error is KoloError {
    return KoloError.hasMarker(error, baseMarker);
  }

  /**
   * True when `error` carries the `Symbol.for(marker)` flag. Subclasses call this with their own
   * marker so their `isInstance` also works across package copies.
   *
   * @example
   * ```ts
   * KoloError.hasMarker(err, 'kolo.error.MismatchError');
   * ```
   */
  protected static hasMarker(error: unknown, marker: string): boolean {
    const symbol = Symbol.for(marker);
    return (
      error != null &&
      typeof error === 'object' &&
      symbol in error &&
      (error as Record<symbol, unknown>)[symbol] === true
    );
  }
}
