import { KoloError, type KoloErrorOptions } from './kolo-error.js';

const marker = 'kolo.error.CommunicationError';
const symbol = Symbol.for(marker);

/**
 * Options of a CommunicationError: the usual fields plus the peer that failed first.
 *
 * @example
 * ```ts
 * new CommunicationError('peer closed', { rank: 0, failedRank: 2 });
 * ```
 */
export interface CommunicationErrorOptions extends Omit<KoloErrorOptions, 'code'> {
  /** The rank that failed first (died, closed its connection), when the engine knows it. */
  readonly failedRank?: number;
}

/**
 * The transport failed (a peer died or a connection broke). This ends the engine's generation:
 * every pending and later request fails; call `shutdown()` and `init()` again to continue.
 *
 * @example
 * ```ts
 * await allreduce(x).catch((e) => {
 *   if (CommunicationError.isInstance(e)) console.error(`rank ${e.failedRank} failed first`);
 * });
 * ```
 */
export class CommunicationError extends KoloError {
  private readonly [symbol] = true;
  /** The rank that failed first, when known. */
  readonly failedRank: number | undefined;

  constructor(message: string, options: CommunicationErrorOptions = {}) {
    super(message, { ...options, code: 'KOLO_COMMUNICATION' });
    this.name = 'CommunicationError';
    this.failedRank = options.failedRank;
  }

  /**
   * True when `error` is a CommunicationError from any copy of `@kolo/core`.
   *
   * @example
   * ```ts
   * if (CommunicationError.isInstance(err)) process.exit(1);
   * ```
   */
  static override isInstance(error: unknown): error is CommunicationError {
    return KoloError.hasMarker(error, marker);
  }
}
