import type { DtypeName, HostArray } from '@kolo/core';
import { halfToNumber, numberToHalf } from './float16.js';
import { reduceOpLabel, type ReduceOpName } from './reduce-op.js';
import { runtimeError } from './torch-errors.js';

type Num = (a: number, b: number) => number;
type Big = (a: bigint, b: bigint) => bigint;

const numberOps: Readonly<Record<ReduceOpName, Num>> = {
  sum: (a, b) => a + b,
  avg: (a, b) => a + b,
  product: (a, b) => a * b,
  min: (a, b) => (b < a || Number.isNaN(b) ? b : a),
  max: (a, b) => (b > a || Number.isNaN(b) ? b : a),
  band: (a, b) => a & b,
  bor: (a, b) => a | b,
  bxor: (a, b) => a ^ b,
};

const bigOps: Readonly<Record<ReduceOpName, Big>> = {
  sum: (a, b) => a + b,
  avg: (a, b) => a + b,
  product: (a, b) => a * b,
  min: (a, b) => (b < a ? b : a),
  max: (a, b) => (b > a ? b : a),
  band: (a, b) => a & b,
  bor: (a, b) => a | b,
  bxor: (a, b) => a ^ b,
};

/** Rounds an intermediate result to the dtype, as the engine's typed arithmetic does. */
const narrow: Readonly<Record<Exclude<DtypeName, 'int64'>, (v: number) => number>> = {
  float32: Math.fround,
  float16: Math.fround,
  float64: (v) => v,
  int32: (v) => Number(BigInt.asIntN(32, BigInt(Math.trunc(v)))),
  int8: (v) => Number(BigInt.asIntN(8, BigInt(Math.trunc(v)))),
  uint8: (v) => Number(BigInt.asUintN(8, BigInt(Math.trunc(v)))),
};

const integral = (dtype: DtypeName): boolean => !dtype.startsWith('float');

/**
 * Throws torch's RuntimeError for a bitwise reduction of a floating-point dtype
 * (`Cannot use ReduceOp.BXOR with non-integral dtype`).
 *
 * @example
 * ```ts
 * checkReduceDtype('band', 'int32'); // ok
 * ```
 */
export function checkReduceDtype(op: ReduceOpName, dtype: DtypeName): void {
  if ((op === 'band' || op === 'bor' || op === 'bxor') && !integral(dtype)) {
    throw runtimeError(`Cannot use ${reduceOpLabel(op)} with non-integral dtype`);
  }
}

/**
 * Reduces equally long chunks element by element in rank order, with the engine's arithmetic:
 * results wrap to the dtype, float16 is computed in float32, and AVG is the sum times 1/count
 * (integers truncate toward zero), so a reduction done here equals one done by the engine.
 *
 * @example
 * ```ts
 * reduceChunks([new Int32Array([6]), new Int32Array([3])], { op: 'bxor', dtype: 'int32' }); // Int32Array [5]
 * ```
 */
export function reduceChunks(chunks: readonly HostArray[], spec: { op: ReduceOpName; dtype: DtypeName }): HostArray {
  const first = chunks[0];
  if (first === undefined) throw new RangeError('reduceChunks needs at least one chunk');
  const { op, dtype } = spec;
  const scale = 1 / chunks.length;
  if (dtype === 'int64') {
    const f = bigOps[op];
    return (first as BigInt64Array).map((_, i) => {
      let acc = (first as BigInt64Array)[i] as bigint;
      for (let c = 1; c < chunks.length; c++) acc = BigInt.asIntN(64, f(acc, (chunks[c] as BigInt64Array)[i] as bigint));
      return op === 'avg' ? BigInt(Math.trunc(Number(acc) * scale)) : acc;
    });
  }
  const f = numberOps[op];
  const round = narrow[dtype];
  const read = dtype === 'float16' ? halfToNumber : (v: number) => v;
  const out = (first as Float32Array).map((_, i) => {
    let acc = read((first as Float32Array)[i] as number);
    for (let c = 1; c < chunks.length; c++) acc = round(f(acc, read((chunks[c] as Float32Array)[i] as number)));
    const value = op === 'avg' ? round(acc * scale) : acc;
    return dtype === 'float16' ? numberToHalf(value) : value;
  });
  return out as HostArray;
}
