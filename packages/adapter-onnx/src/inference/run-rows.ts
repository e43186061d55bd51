import { UnsupportedError, type HostArray } from '@kolo/core';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { dataTypeInfo, type OnnxElementType } from '../model/data-types.js';
import { elementCount, formatDims } from '../model/named-tensor.js';
import type { OrtModule } from '../ort/load-ort.js';
import type { RowBlock } from './gather-rows.js';
import { takeRows } from './shard-rows.js';

/**
 * Options of {@link runRows}.
 *
 * @example
 * ```ts
 * await runRows({ ort, session, feeds, rows: [0, 3, 6], batchSize: 2, fetches: ['logits'] });
 * ```
 */
export interface RunRowsOptions {
  readonly ort: OrtModule;
  readonly session: InferenceSession;
  /** Whole-dataset inputs, rows along dimension 0 (already validated). */
  readonly feeds: Readonly<Record<string, Tensor>>;
  /** The dataset rows to run, in order. */
  readonly rows: readonly number[];
  /** Rows per `session.run`. */
  readonly batchSize: number;
  readonly fetches: readonly string[];
}

/**
 * Runs `rows` of the dataset through the session in batches of `batchSize` and concatenates each
 * output's rows. Resolves with undefined when there are no rows. Every output must have one row
 * per input row along dimension 0.
 *
 * @example
 * ```ts
 * const local = await runRows({ ort, session, feeds: { x }, rows: [1, 4], batchSize: 64, fetches: ['logits'] });
 * ```
 */
export async function runRows(options: RunRowsOptions): Promise<Map<string, RowBlock> | undefined> {
  const { ort, session, feeds, rows, batchSize, fetches } = options;
  if (rows.length === 0) return undefined;
  const parts = new Map<string, { type: OnnxElementType; rowDims: number[]; data: HostArray[] }>();
  for (let start = 0; start < rows.length; start += batchSize) {
    const batch = rows.slice(start, start + batchSize);
    const batchFeeds: Record<string, Tensor> = {};
    for (const [input, tensor] of Object.entries(feeds)) {
      const rowDims = tensor.dims.slice(1);
      const data = takeRows(tensor.data as Float32Array, { rowLength: elementCount(rowDims), rows: batch });
      batchFeeds[input] = new ort.Tensor(tensor.type as 'float32', data, [batch.length, ...rowDims]);
    }
    const results = await session.run(batchFeeds, [...fetches]);
    for (const out of fetches) {
      const block = rowBlock(out, results[out] as Tensor, batch.length);
      const seen = parts.get(out) ?? { type: block.type, rowDims: [...block.rowDims], data: [] };
      seen.data.push(block.data);
      parts.set(out, seen);
    }
  }
  return new Map([...parts].map(([out, p]) => [out, { type: p.type, rowDims: p.rowDims, data: concat(p.data) }]));
}

function rowBlock(output: string, tensor: Tensor, rows: number): RowBlock {
  const type = dataTypeInfo(tensor.type as OnnxElementType)?.type;
  if (!type) throw new UnsupportedError(`Output '${output}' has type ${tensor.type}, which Kolo cannot gather`);
  if (tensor.dims[0] !== rows) {
    throw new UnsupportedError(
      `Output '${output}' has dims ${formatDims(tensor.dims)} for a batch of ${rows} rows; distributed inference ` +
        'needs outputs with one row per input row along dimension 0',
    );
  }
  return { type, rowDims: tensor.dims.slice(1), data: tensor.data as HostArray };
}

function concat(arrays: HostArray[]): HostArray {
  if (arrays.length === 1) return arrays[0]!;
  const total = arrays.reduce((n, a) => n + a.length, 0);
  const out = new (arrays[0]!.constructor as new (n: number) => Float32Array)(total);
  let offset = 0;
  for (const a of arrays) {
    out.set(a as Float32Array, offset);
    offset += a.length;
  }
  return out;
}
