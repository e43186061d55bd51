import { KoloError } from '../errors/kolo-error.js';
import { TimeoutError } from '../errors/timeout-error.js';

const timeoutMarker = 'kolo.error.StoreTimeoutError';
const unauthorizedMarker = 'kolo.error.StoreUnauthorizedError';
const protocolMarker = 'kolo.error.StoreProtocolError';
const connectionMarker = 'kolo.error.StoreConnectionError';
const timeoutSymbol = Symbol.for(timeoutMarker);
const unauthorizedSymbol = Symbol.for(unauthorizedMarker);
const protocolSymbol = Symbol.for(protocolMarker);
const connectionSymbol = Symbol.for(connectionMarker);

/**
 * A store request (blocking `get`/`wait`, or `connect`) did not complete within its `timeoutMs`.
 * Code `KOLO_STORE_TIMEOUT`; also a {@link TimeoutError}.
 *
 * @example
 * ```ts
 * await store.get('peer/1', { timeoutMs: 1000 }).catch((e) => {
 *   if (StoreTimeoutError.isInstance(e)) console.error('rank 1 never published its address');
 * });
 * ```
 */
export class StoreTimeoutError extends TimeoutError {
  private readonly [timeoutSymbol] = true;

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, code: 'KOLO_STORE_TIMEOUT' });
    this.name = 'StoreTimeoutError';
  }

  /**
   * True when `error` is a StoreTimeoutError from any copy of `@kolo/core`.
   *
   * @example
   * ```ts
   * if (StoreTimeoutError.isInstance(err)) process.exitCode = 1;
   * ```
   */
  static override isInstance(error: unknown): error is StoreTimeoutError {
    return KoloError.hasMarker(error, timeoutMarker);
  }
}

/**
 * The AUTH handshake failed: the store and this process hold different job secrets (the store
 * refused this process's proof, or the store's proof did not match), or the first frame was not
 * AUTH. Code `KOLO_STORE_UNAUTHORIZED`.
 *
 * @example
 * ```ts
 * await StoreClient.connect(opts).catch((e) => {
 *   if (StoreUnauthorizedError.isInstance(e)) console.error('export the same KOLO_JOB_SECRET');
 * });
 * ```
 */
export class StoreUnauthorizedError extends KoloError {
  private readonly [unauthorizedSymbol] = true;

  constructor(message: string) {
    super(message, { code: 'KOLO_STORE_UNAUTHORIZED' });
    this.name = 'StoreUnauthorizedError';
  }

  /**
   * True when `error` is a StoreUnauthorizedError from any copy of `@kolo/core`.
   *
   * @example
   * ```ts
   * if (StoreUnauthorizedError.isInstance(err)) console.error(err.message);
   * ```
   */
  static override isInstance(error: unknown): error is StoreUnauthorizedError {
    return KoloError.hasMarker(error, unauthorizedMarker);
  }
}

/**
 * A frame broke the store protocol (bad length, unknown op, oversize key or value), on either
 * side. Code `KOLO_STORE_PROTOCOL`. The server answers BAD_REQUEST with this message and closes.
 *
 * @example
 * ```ts
 * if (StoreProtocolError.isInstance(err)) console.error('client and server versions differ?');
 * ```
 */
export class StoreProtocolError extends KoloError {
  private readonly [protocolSymbol] = true;

  constructor(message: string) {
    super(message, { code: 'KOLO_STORE_PROTOCOL' });
    this.name = 'StoreProtocolError';
  }

  /**
   * True when `error` is a StoreProtocolError from any copy of `@kolo/core`.
   *
   * @example
   * ```ts
   * if (StoreProtocolError.isInstance(err)) console.error(err.message);
   * ```
   */
  static override isInstance(error: unknown): error is StoreProtocolError {
    return KoloError.hasMarker(error, protocolMarker);
  }
}

/**
 * The connection to the store closed (or failed) before a request was answered, usually because
 * the launcher exited. Code `KOLO_STORE_CONNECTION`.
 *
 * @example
 * ```ts
 * if (StoreConnectionError.isInstance(err)) console.error('is kolorun still running?');
 * ```
 */
export class StoreConnectionError extends KoloError {
  private readonly [connectionSymbol] = true;

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, code: 'KOLO_STORE_CONNECTION' });
    this.name = 'StoreConnectionError';
  }

  /**
   * True when `error` is a StoreConnectionError from any copy of `@kolo/core`.
   *
   * @example
   * ```ts
   * if (StoreConnectionError.isInstance(err)) console.error(err.message);
   * ```
   */
  static override isInstance(error: unknown): error is StoreConnectionError {
    return KoloError.hasMarker(error, connectionMarker);
  }
}
