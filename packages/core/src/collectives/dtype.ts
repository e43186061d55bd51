import type { HostArray, NativeBinding } from '@kolo/native';
import { UnsupportedError } from '../errors/unsupported-error.js';
import { invalidArgument } from '../validation/invalid-argument.js';

/**
 * Element types Kolo moves. `float16` travels in a Uint16Array (raw IEEE half bits).
 *
 * @example
 * ```ts
 * const dtype: DtypeName = dtypeOf(new Uint16Array(2), 'data'); // 'float16'
 * ```
 */
export type DtypeName = 'float32' | 'float64' | 'int32' | 'int64' | 'uint8' | 'int8' | 'float16';

/** The array class that holds each dtype. */
export const arrayClassOf = {
  float32: Float32Array,
  float64: Float64Array,
  int32: Int32Array,
  int64: BigInt64Array,
  uint8: Uint8Array,
  int8: Int8Array,
  float16: Uint16Array,
} as const;

/**
 * The array class of `dtype` with its article, for messages: `a Float32Array`, `an Int32Array`.
 *
 * @example
 * ```ts
 * arrayNoun('int8'); // 'an Int8Array'
 * ```
 */
export function arrayNoun(dtype: DtypeName): string {
  const name = arrayClassOf[dtype].name;
  return `${name.startsWith('I') ? 'an' : 'a'} ${name}`;
}

/**
 * The dtype a typed array class holds, by the class's name; undefined for any other. A switch,
 * not a Map: the names are interned constants, so each case is one comparison, where a Map
 * lookup hashed the name (twice per allreduce, for its data and its output).
 */
function dtypeOfClassName(className: string | undefined): DtypeName | undefined {
  switch (className) {
    case 'Float32Array':
      return 'float32';
    case 'Float64Array':
      return 'float64';
    case 'Int32Array':
      return 'int32';
    case 'BigInt64Array':
      return 'int64';
    case 'Uint8Array':
      return 'uint8';
    case 'Int8Array':
      return 'int8';
    case 'Uint16Array':
      return 'float16';
    default:
      return undefined;
  }
}

/**
 * `%TypedArray%.prototype[Symbol.toStringTag]`: a typed array's class name from its internal
 * slot (also across realms and for Buffer, a Uint8Array), undefined for anything else. Called
 * on every array of every collective; `Object.prototype.toString` builds a string each time.
 */
const typedArrayClassName = Object.getOwnPropertyDescriptor(
  Object.getPrototypeOf(Uint8Array.prototype) as object,
  Symbol.toStringTag,
)?.get as (this: unknown) => string | undefined;

const accepted =
  'a Float32Array, Float64Array, Int32Array, BigInt64Array, Uint8Array, Int8Array or Uint16Array (float16)';

/**
 * The dtype of a TypedArray, from its class (also across realms and for Buffer, a Uint8Array).
 * A Uint16Array always means float16 storage: there is no uint16 dtype. Throws a TypeError for
 * anything else.
 *
 * @example
 * ```ts
 * dtypeOf(new Float32Array(4), 'data'); // 'float32'
 * dtypeOf([1, 2], 'data');              // TypeError: Expected a Float32Array, … for data but received [1, 2]
 * ```
 */
export function dtypeOf(value: unknown, name: string): DtypeName {
  const dtype = dtypeOfClassName(typedArrayClassName.call(value));
  if (dtype === undefined) throw invalidArgument({ what: accepted, name, value });
  // `.buffer` is a call into V8's runtime (about 40 ns): read it once.
  const buffer = (value as ArrayBufferView).buffer as ArrayBufferLike & { readonly resizable?: boolean };
  // Only an empty view can sit on a detached buffer. (`length`, not `byteLength`: the same test
  // for a typed array, and V8 inlines it; `byteLength` took 30 ns, a few percent of a small call.)
  if ((value as Uint8Array).length === 0 && isDetached(buffer)) {
    throw invalidArgument({
      what: 'an array whose buffer is still attached (it was transferred or structuredClone()d away; pass a fresh array)',
      name,
      value: 'a detached buffer',
    });
  }
  // A growable SharedArrayBuffer only grows: its views stay valid.
  if (buffer.resizable === true && buffer instanceof ArrayBuffer) {
    throw invalidArgument({
      what: 'an array over a fixed-length buffer (a resizable ArrayBuffer may shrink while the engine reads or writes it; pass a copy from array.slice())',
      name,
      value: 'a resizable ArrayBuffer',
    });
  }
  return dtype;
}

/** True when `buffer` was transferred away; viewing a detached buffer throws. */
function isDetached(buffer: ArrayBufferLike): boolean {
  if (typeof SharedArrayBuffer !== 'undefined' && buffer instanceof SharedArrayBuffer) return false;
  try {
    new Uint8Array(buffer as ArrayBuffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}

/**
 * The engine's numeric id of a dtype, read from the binding's constants.
 *
 * @example
 * ```ts
 * const id = dtypeId(binding, 'float32');
 * ```
 */
export function dtypeId(binding: NativeBinding, dtype: DtypeName): number {
  const id = binding.constants.dtypes[dtype];
  if (id === undefined) {
    throw new UnsupportedError(`This build of the Kolo engine does not support dtype ${dtype}.`);
  }
  return id;
}

/**
 * A new zeroed array of `dtype` with `length` elements.
 *
 * @example
 * ```ts
 * allocate('int64', 3); // BigInt64Array(3) [0n, 0n, 0n]
 * ```
 */
export function allocate(dtype: DtypeName, length: number): HostArray {
  return new arrayClassOf[dtype](length);
}

/**
 * Views engine result bytes as an array of `dtype`.
 *
 * @example
 * ```ts
 * viewResult('float32', new ArrayBuffer(8)); // Float32Array(2)
 * ```
 */
export function viewResult(dtype: DtypeName, bytes: ArrayBuffer): HostArray {
  return new arrayClassOf[dtype](bytes);
}
