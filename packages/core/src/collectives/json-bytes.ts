import { invalidArgCode, invalidArgument } from '../validation/invalid-argument.js';

const what = 'a JSON-serializable value (no functions, symbols, bigints or cycles)';

/**
 * Serializes `value` to UTF-8 JSON bytes for the object collectives. Throws a TypeError naming
 * the offending property for values JSON would silently drop or cannot encode (functions,
 * symbols, bigints, cycles, a top-level undefined). Nested `undefined` properties are dropped and
 * non-finite numbers become `null`, as in `JSON.stringify`.
 *
 * @example
 * ```ts
 * encodeJson({ epoch: 3 }, 'obj'); // Uint8Array of '{"epoch":3}'
 * encodeJson({ f() {} }, 'obj');    // TypeError: Expected a JSON-serializable value … for obj.f but received function f
 * ```
 */
export function encodeJson(value: unknown, name: string): Uint8Array {
  let text: string | undefined;
  try {
    text = JSON.stringify(value, function (this: unknown, key: string, v: unknown) {
      const bad = typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint';
      if (bad || (key === '' && v === undefined)) {
        throw invalidArgument({ what, name: key === '' ? name : `${name}.${key}`, value: v });
      }
      return v;
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === invalidArgCode) throw error;
    throw Object.assign(invalidArgument({ what, name, value }), { cause: error });
  }
  return new TextEncoder().encode(text);
}

/**
 * Parses UTF-8 JSON bytes produced by {@link encodeJson}.
 *
 * @example
 * ```ts
 * decodeJson(encodeJson([1, 'a'], 'obj')); // [1, 'a']
 * ```
 */
export function decodeJson(bytes: Uint8Array): unknown {
  return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
}
