// Expected values of the Horovod port, derived from the fixtures (split from the test file).
import { inputs } from './workers/fixtures.mjs';

// Expected values are derived here from the fixtures, never from the engine. Scaling follows
// Horovod's pipeline: value * factor in double, then a cast to the dtype (integers truncate).
export const cast = (dtype: string, v: number): number =>
  dtype.startsWith('int') ? Math.trunc(v) : dtype === 'float32' ? Math.fround(v) : v;
export const ranks = (size: number): number[] => Array.from({ length: size }, (_, r) => r);
export const zip = (rows: number[][], f: (xs: number[]) => number): number[] => (rows[0] ?? []).map((_, i) => f(rows.map((row) => row[i] as number)));
export const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
/** JSON turns -0 into 0, as the worker's report does. */
export const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
export const same = <T>(size: number, value: T): T[] => ranks(size).map(() => json(value));
export const perRankTensor = (size: number, salt: number, count: number, lo?: number, hi?: number): number[][] =>
  ranks(size).map((r) => inputs.perRank(r, salt, count, lo, hi));

export function scatterBlock(rows: number, size: number, me: number): [number, number] {
  const base = Math.floor(rows / size);
  const extra = rows % size;
  return [me * base + Math.min(me, extra), base + (me < extra ? 1 : 0)];
}

export const mismatch = (rule: string, text: string) => ({
  name: 'MismatchError',
  code: 'KOLO_MISMATCH',
  message: `${text.replace(/\.$/, '')}. Every rank must submit '${rule}' with the same dtype, shape, op, root and scale factors.`,
});

export function mismatchTexts(size: number): Record<string, string> {
  return {
    allreduceShape:
      'Mismatched ALLREDUCE tensor shapes: One rank sent a tensor of shape [17, 17, 17], but another rank sent a tensor of shape [18, 18, 18].',
    allreduceRank: 'Mismatched ALLREDUCE tensor shapes: One rank sent a tensor of shape [4, 6], but another rank sent a tensor of shape [24].',
    allreduceType: 'Mismatched data types: One rank had type int32, but another rank had type float32.',
    operation: 'Mismatched operations: One rank did an ALLREDUCE, but another rank did an ALLGATHER.',
    reduceOp: 'Mismatched reduction operation: One rank sent reduction op 0, but another rank sent reduction op 1.',
    scale: 'Mismatched prescale and/or postscale factors: One rank sent factors (1, 0.5), but another rank sent factors (1, 1).',
    allgatherDim:
      'Mismatched ALLGATHER tensor shapes: One rank sent a tensor with dimension 1 equal to 3, but another rank sent a tensor with dimension 1 equal to 4.',
    allgatherRank: 'Mismatched ALLGATHER tensor shapes: One rank sent a tensor of rank 2, but another rank sent a tensor of rank 3.',
    allgatherType: 'Mismatched data types: One rank had type int32, but another rank had type float32.',
    broadcastShape: 'Mismatched BROADCAST tensor shapes: One rank sent a tensor of shape [4], but another rank sent a tensor of shape [5].',
    broadcastType: 'Mismatched data types: One rank had type int32, but another rank had type float32.',
    broadcastRoot: 'Mismatched BROADCAST root ranks: One rank specified root rank 0, but another rank specified root rank 1.',
    alltoallType: 'Mismatched data types: One rank had type int32, but another rank had type float32.',
    alltoallDim:
      'Mismatched ALLTOALL tensor shapes: One rank sent a tensor with dimension 1 equal to 2, but another rank sent a tensor with dimension 1 equal to 3.',
    reducescatterShape: `Mismatched REDUCESCATTER tensor shapes: One rank sent a tensor of shape [${size}, 2], but another rank sent a tensor of shape [${size}, 3].`,
    reducescatterType: 'Mismatched data types: One rank had type int32, but another rank had type float32.',
  };
}

export interface TimelineEvent {
  readonly name?: string;
  readonly ph: string;
  readonly pid?: number;
  readonly ts?: number;
  readonly args?: { readonly name?: string; readonly start_time_since_epoch_in_micros?: number };
}

export const argError = (name: string, message: string) => ({ name, code: 'ERR_KOLO_INVALID_ARG', message });
export const unsupported = (message: string) => ({ name: 'UnsupportedError', code: 'KOLO_UNSUPPORTED', message });
export const duplicateText =
  'Requested to allreduce, allgather, or broadcast a tensor with the same name as another tensor that is currently being processed.  If you want to request another tensor, use a different tensor name';

/** A request refused on the rank that queued it (process-set requests carry an @ps<id> suffix on the wire). */
export const localMismatch = (detail: string) => ({ name: 'MismatchError', code: 'KOLO_MISMATCH', message: detail });

/** What every rank reports for the process-set collectives: evens in set 1, odds in set 2. */
export function expectedProcessSets(size: number): unknown[] {
  const all = ranks(size);
  const evens = all.filter((r) => r % 2 === 0);
  const odds = all.filter((r) => r % 2 === 1);
  const n = evens.length;
  const x = evens.map((e) => inputs.perRank(e, 50, 6));
  const scattered = zip(evens.map((e) => inputs.perRank(e, 51, n * 2)), sum);
  return all.map((r) => {
    const common = { ids: [1, 2], ranks: [evens, odds], me: [evens.indexOf(r), odds.indexOf(r)] };
    const p = evens.indexOf(r);
    if (p < 0) {
      const detail = `outsider@ps1 failed on rank ${r}: Rank ${r} is not a member of process set 1; only its members may submit 'outsider@ps1'.`;
      return { ...common, outsider: localMismatch(detail) };
    }
    return {
      ...common,
      sum: zip(x, sum),
      average: zip(x, (xs) => Math.trunc(sum(xs) * (1 / n))),
      gather: x.flat(),
      bcast: x[n - 1],
      alltoall: evens.map((e) => p * 100 + e),
      scatter: scattered.slice(2 * p, 2 * p + 2),
    };
  });
}
