import { STORE_LIMITS } from './store-protocol.js';

type CodedError<E extends Error> = E & { code: string };

function invalid<E extends Error>(
  ErrorClass: new (message: string) => E,
  message: string,
): CodedError<E> {
  return Object.assign(new ErrorClass(message), { code: 'KOLO_INVALID_ARGUMENT' });
}

/** Throws TypeError/RangeError (code `KOLO_INVALID_ARGUMENT`) unless `key` is a string of at most 4096 UTF-8 bytes. */
export function checkKey(key: unknown): asserts key is string {
  if (typeof key !== 'string') {
    throw invalid(TypeError, `Expected a string for key but received ${typeof key}`);
  }
  const bytes = Buffer.byteLength(key, 'utf8');
  if (bytes > STORE_LIMITS.maxKeyBytes) {
    throw invalid(
      RangeError,
      `Expected a key of at most ${STORE_LIMITS.maxKeyBytes} bytes but received ${bytes} bytes; use a shorter key`,
    );
  }
}

/** Checks an array of keys (at least one). */
export function checkKeys(keys: unknown): asserts keys is readonly string[] {
  if (!Array.isArray(keys) || keys.length === 0) {
    throw invalid(
      TypeError,
      `Expected a non-empty array of keys but received ${
        Array.isArray(keys) ? 'an empty array' : typeof keys
      }`,
    );
  }
  for (const key of keys) checkKey(key);
}

/** Throws unless `value` is a Uint8Array of at most 64 MiB; returns it as a Buffer view. */
export function checkValue(value: unknown): Buffer {
  if (!(value instanceof Uint8Array)) {
    throw invalid(
      TypeError,
      `Expected a string or Uint8Array for value but received ${typeof value}`,
    );
  }
  if (value.byteLength > STORE_LIMITS.maxValueBytes) {
    throw invalid(
      RangeError,
      `Expected a value of at most ${STORE_LIMITS.maxValueBytes} bytes but received ${value.byteLength} bytes; store large data elsewhere and put its location in the store`,
    );
  }
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

/** Throws unless `timeoutMs` is an integer from 0 to 2^32-1. */
export function checkTimeoutMs(timeoutMs: unknown): asserts timeoutMs is number {
  if (
    typeof timeoutMs !== 'number' ||
    !Number.isInteger(timeoutMs) ||
    timeoutMs < 0 ||
    timeoutMs > 0xffffffff
  ) {
    throw invalid(
      RangeError,
      `Expected an integer from 0 to 4294967295 for timeoutMs but received ${String(timeoutMs)}`,
    );
  }
}
