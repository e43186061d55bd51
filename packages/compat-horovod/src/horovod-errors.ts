import { invalidArgCode, NotInitializedError, UnsupportedError } from '@kolo/core';

/** Horovod's text for every call made before `init()` or after `shutdown()`. */
export const notInitializedText = 'Horovod has not been initialized; use hvd.init().';

/**
 * Horovod's `ValueError` for a bad argument, as a built-in error with Kolo's argument-error code:
 * `TypeError` for a wrong kind of value or combination, `RangeError` for a value out of range.
 *
 * @example
 * ```ts
 * throw valueError('alltoall expects a 1D splits tensor', 'type');
 * ```
 */
export function valueError(message: string, kind: 'type' | 'range'): TypeError | RangeError {
  const error = kind === 'range' ? new RangeError(message) : new TypeError(message);
  return Object.assign(error, { code: invalidArgCode });
}

/**
 * Rewrites core's NotInitializedError into Horovod's wording, keeping its class, code and stack;
 * any other error passes through unchanged.
 *
 * @example
 * ```ts
 * try { core.rank(); } catch (e) { throw horovodError(e); }
 * ```
 */
export function horovodError(error: unknown): unknown {
  if (!NotInitializedError.isInstance(error) || error.message === notInitializedText) return error;
  const old = error.message;
  error.message = notInitializedText;
  if (error.stack !== undefined) error.stack = error.stack.replace(old, notInitializedText);
  return error;
}

/**
 * Runs `call`, turning a not-initialized failure (thrown, or a rejection of the returned promise)
 * into Horovod's message.
 *
 * @example
 * ```ts
 * export const rank = (): number => horovodCall(() => core.rank());
 * ```
 */
export function horovodCall<T>(call: () => T): T {
  let result: T;
  try {
    result = call();
  } catch (error) {
    throw horovodError(error);
  }
  if (result instanceof Promise) {
    return result.catch((error: unknown) => Promise.reject(horovodError(error))) as T;
  }
  return result;
}

/**
 * The failure for a `process_set` argument on a call that cannot run over a process set yet.
 *
 * @example
 * ```ts
 * throw processSetsUnsupported('broadcast_object');
 * ```
 */
export function processSetsUnsupported(opName: string): UnsupportedError {
  return new UnsupportedError(
    `${opName}: process sets are not supported for this call yet; remove the process_set ` +
      'argument (it then runs over all ranks).',
    { opName },
  );
}
