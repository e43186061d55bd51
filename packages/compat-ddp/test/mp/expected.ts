// Exact expected results of workers/collectives.mjs, derived from workers/inputs.mjs without the engine.
import { DTYPES, OPS, inputs, isFloat } from './workers/inputs.mjs';

type Op = (typeof OPS)[number];
const bitwise = (op: string): boolean => op === 'band' || op === 'bor' || op === 'bxor';
const ranks = (size: number): number[] => Array.from({ length: size }, (_, r) => r);

/** Element-wise reduction of per-rank rows, in rank order; AVG truncates for integer dtypes. */
export function reduceRows(rows: number[][], op: Op, dtype: string): number[] {
  const fold = (a: number, b: number): number => {
    switch (op) {
      case 'sum':
      case 'avg':
        return a + b;
      case 'product':
        return a * b;
      case 'min':
        return Math.min(a, b);
      case 'max':
        return Math.max(a, b);
      case 'band':
        return a & b;
      case 'bor':
        return a | b;
      default:
        return a ^ b;
    }
  };
  const folded = (rows[0] as number[]).map((_, i) => rows.map((row) => row[i] as number).reduce(fold));
  if (op !== 'avg') return folded;
  return folded.map((v) => (isFloat(dtype) ? v / rows.length : Math.trunc(v / rows.length)));
}

/** torch's message for a bitwise reduction of a floating-point dtype. */
export const nonIntegral = (op: string): { error: string; name: string } => ({ error: `Cannot use ReduceOp.${op.toUpperCase()} with non-integral dtype`, name: 'RuntimeError' });

/** Every key the worker reports, with its exact value on `rank` of a job of `size`. */
export function expectedResults(rank: number, size: number): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const all = ranks(size);
  for (const dtype of DTYPES) {
    for (const op of OPS) {
      const float = bitwise(op) && isFloat(dtype);
      const mine = inputs.reduce(dtype, rank, size)(op);
      const reduced = reduceRows(all.map((r) => inputs.reduce(dtype, r, size)(op)), op, dtype);
      const scattered = reduceRows(all.map((r) => inputs.scatterChunk(r, rank)), op, dtype);
      out.set(`all_reduce.${op}.${dtype}`, float ? nonIntegral(op) : { inPlace: true, data: reduced });
      out.set(`reduce.${op}.${dtype}`, float ? nonIntegral(op) : rank === size - 1 ? reduced : mine);
      out.set(`reduce_scatter.${op}.${dtype}`, float ? nonIntegral(op) : scattered);
      out.set(`reduce_scatter_tensor.${op}.${dtype}`, float ? nonIntegral(op) : scattered);
    }
    out.set(`broadcast.${dtype}`, inputs.broadcast(size - 1));
    out.set(`all_gather.${dtype}`, all.map((r) => inputs.gather(r)));
    out.set(`all_gather_into_tensor.${dtype}`, all.flatMap((r) => inputs.gatherInto(r)));
    out.set(`gather.${dtype}`, rank === 1 % size ? all.map((r) => inputs.gatherTo(r)) : null);
    out.set(`scatter.${dtype}`, inputs.scatterPart(rank));
    out.set(`all_to_all.${dtype}`, all.map((r) => inputs.toAll(r, rank)));
    out.set(`all_to_all_single.${dtype}`, all.flatMap((r) => [inputs.single(r, 2 * rank), inputs.single(r, 2 * rank + 1)]));
    const offset = (rank * (rank + 1)) / 2;
    out.set(`all_to_all_single.uneven.${dtype}`, all.flatMap((r) => Array.from({ length: rank + 1 }, (_, t) => inputs.single(r, offset + t))));
    const from = (rank + size - 1) % size;
    out.set(`send_recv.${dtype}`, { from, data: inputs.ring(from) });
  }
  out.set('barrier', true);
  out.set('broadcast_object_list', [{ lr: 0.1 }, '42', { nested: [1, 'two'] }]);
  out.set('all_gather_object', all.map((r) => ({ rank: r, tag: `r${r}` })));
  out.set('monitored_barrier', true);
  return out;
}
