import { expect } from 'vitest';
import { DTYPES, inputs } from './workers/fixtures.mjs';
import { type JobResult, perRank } from './run-job.js';

/** Wraps like the dtype does (uint8/int8 products overflow at size 4). */
function wrap(dtype: string, values: number[]): number[] {
  if (dtype === 'uint8') return Array.from(Uint8Array.from(values));
  if (dtype === 'int8') return Array.from(Int8Array.from(values));
  return values;
}

const isInt = (dtype: string) => !dtype.startsWith('float');
const ranks = (size: number) => Array.from({ length: size }, (_, r) => r);

export function expected(size: number, dtype: string) {
  const cols = (f: (r: number) => number[], combine: (xs: number[]) => number) =>
    f(0).map((_, i) => combine(ranks(size).map((r) => f(r)[i]!)));
  const sum = cols(inputs.reduce, (xs) => xs.reduce((a, b) => a + b, 0));
  const avgRaw = cols(inputs.average, (xs) => xs.reduce((a, b) => a + b, 0) / size);
  const rows = inputs.scatterRows(size);
  const base = Math.floor(rows / size);
  const extra = rows % size;
  const scatterSum = cols((r) => inputs.scatter(r, size), (xs) => xs.reduce((a, b) => a + b, 0));
  return {
    sum: wrap(dtype, sum),
    min: cols(inputs.reduce, (xs) => Math.min(...xs)),
    max: cols(inputs.reduce, (xs) => Math.max(...xs)),
    product: wrap(dtype, cols(inputs.reduce, (xs) => xs.reduce((a, b) => a * b, 1))),
    average: isInt(dtype) ? avgRaw.map(Math.trunc) : avgRaw,
    gather: { data: ranks(size).flatMap((r) => inputs.gather(r)), shape: [ranks(size).reduce((a, r) => a + inputs.gatherRows(r), 0), 2] },
    alltoall: (me: number) => {
      const data: number[] = [];
      const receivedSplits: number[] = [];
      for (const r of ranks(size)) {
        const splits = inputs.alltoallSplits(r, size);
        const offset = splits.slice(0, me).reduce((a, b) => a + b, 0);
        data.push(...inputs.alltoall(r, size).slice(offset, offset + splits[me]!));
        receivedSplits.push(splits[me]!);
      }
      return { data, receivedSplits };
    },
    scatter: (me: number) => {
      const start = me * base + Math.min(me, extra);
      const n = base + (me < extra ? 1 : 0);
      return { data: wrap(dtype, scatterSum.slice(start * 2, (start + n) * 2)), shape: [n, 2] };
    },
  };
}


/** Asserts every result the ops-matrix worker reported, for a job of `size` ranks. */
export function checkMatrix(job: JobResult, size: number): void {
    for (const dtype of DTYPES) {
      const want = expected(size, dtype);
      for (const op of ['sum', 'min', 'max', 'product', 'average'] as const) {
        expect(perRank(job, `allreduce.${op}.${dtype}`, size), `${op} ${dtype}`).toEqual(ranks(size).map(() => want[op]));
      }
      expect(perRank(job, `allgather.${dtype}`, size)).toEqual(ranks(size).map(() => want.gather));
      expect(perRank(job, `allgather.into.${dtype}`, size)).toEqual(ranks(size).map(() => ({ ...want.gather, same: true })));
      expect(perRank(job, `broadcast.${dtype}`, size)).toEqual(ranks(size).map(() => [size - 1, size - 1, size - 1]));
      expect(perRank(job, `alltoall.${dtype}`, size), `alltoall ${dtype}`).toEqual(ranks(size).map(want.alltoall));
      expect(perRank(job, `reducescatter.${dtype}`, size), `reducescatter ${dtype}`).toEqual(ranks(size).map(want.scatter));
    }
    const sumOfRanks = (size * (size - 1)) / 2;
    expect(perRank(job, 'allreduce.scaled.float64', size)).toEqual(ranks(size).map(() => [((sumOfRanks + size) * 0.5) * 3]));
    expect(perRank(job, 'groupedAllreduce', size)).toEqual(ranks(size).map(() => [[sumOfRanks], [size, 2 * size], [sumOfRanks, size]]));
    const repeated = Array.from({ length: 6 }, (_, it) => ranks(size).flatMap((r) => Array.from({ length: r + 1 }, (_, i) => it * 100 + r * 10 + i)));
    expect(perRank(job, 'allgather.repeated', size)).toEqual(ranks(size).map(() => repeated));
    for (const [n, key] of [[20000, 'large'], [40000, 'larger'], [150000, 'huge']] as const) {
      const large = { length: n * size + (size * (size - 1)) / 2, wrong: 0 };
      expect(perRank(job, `allgather.${key}`, size)).toEqual(ranks(size).map(() => ({ fresh: large, into: large, same: true })));
    }
    expect(perRank(job, 'broadcast.large', size)).toEqual(ranks(size).map(() => ({ fresh: 0, inPlace: 0, length: 40000 })));
    expect(perRank(job, 'allreduce.large', size)).toEqual(
      ranks(size).map(() => ({ apart: 0, inputIntact: 0, inPlace: 0, average: 0, group: [0, 0, 0, 0], length: 300001 })),
    );
    const badOutput = {
      name: 'RangeError',
      code: 'ERR_KOLO_INVALID_ARG',
      message: `Expected a Float32Array of length ${size} (the gathered shape [${size}]) for output of allgather 'bad.output' but received Float32Array(${size + 1})`,
    };
    expect(perRank(job, 'allgather.badOutput', size)).toEqual(
      ranks(size).map((r) => ({ outcome: r === 0 ? badOutput : { data: ranks(size) }, after: ranks(size) })),
    );
    expect(perRank(job, 'empty', size)).toEqual(ranks(size).map(() => ({ sum: 0, gather: [0, 3], bcast: 0 })));
    expect(perRank(job, 'barrier', size)).toEqual(ranks(size).map(() => true));
    expect(perRank(job, 'afterShutdown', size)).toEqual(ranks(size).map(() => ({ name: 'NotInitializedError', code: 'KOLO_NOT_INITIALIZED' })));
    const joins = perRank(job, 'join', size) as { steps: number[]; last: number }[];
    joins.forEach((j, r) => {
      // Step s is summed over the ranks that still had a step s; joined ranks add zeros.
      const want = Array.from({ length: inputs.joinSteps(r) }, (_, s) => ranks(size).filter((q) => inputs.joinSteps(q) > s).length);
      expect(j.steps).toEqual(want);
      expect(j.last).toBe(size - 1);
    });
}
