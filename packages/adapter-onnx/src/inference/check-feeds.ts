import { invalidArgument } from '@kolo/core';
import type { Tensor } from 'onnxruntime-node';
import { arrayFits, dataTypeInfo, type OnnxElementType } from '../model/data-types.js';
import { elementCount, formatDims } from '../model/named-tensor.js';

/**
 * Checks the whole-dataset feeds of a distributed run: exactly the session's inputs, each a
 * numeric CPU tensor with rows along dimension 0, all with the same number of rows (>= 1).
 * Returns that number of rows.
 *
 * @example
 * ```ts
 * checkFeeds({ x: new Tensor('float32', data, [100, 784]) }, ['x']); // 100
 * ```
 */
export function checkFeeds(feeds: unknown, inputNames: readonly string[]): number {
  if (feeds === null || typeof feeds !== 'object' || Array.isArray(feeds)) {
    throw invalidArgument({ what: 'an object of input tensors', name: 'feeds', value: feeds });
  }
  const record = feeds as Record<string, unknown>;
  const names = inputNames.map((n) => `'${n}'`).join(', ');
  for (const key of Object.keys(record)) {
    if (!inputNames.includes(key)) throw invalidArgument({ what: `one of the model inputs ${names}`, name: 'feeds key', value: key });
  }
  let datasetLength: number | undefined;
  for (const input of inputNames) {
    const label = `feeds['${input}']`;
    const tensor = record[input] as Partial<Tensor> | undefined;
    if (tensor === undefined) throw invalidArgument({ what: 'a tensor (every model input must be fed)', name: label, value: tensor });
    const type = tensor.type as OnnxElementType;
    if (!dataTypeInfo(type) || !arrayFits(tensor.data, type) || !Array.isArray(tensor.dims)) {
      throw invalidArgument({ what: 'an onnxruntime Tensor of a numeric or bool type on the CPU', name: label, value: tensor });
    }
    const rows = tensor.dims[0];
    if (rows === undefined || rows < 1) {
      throw invalidArgument({ what: 'dims with at least one row along dimension 0', name: `${label}.dims`, value: tensor.dims, kind: 'range' });
    }
    if (datasetLength !== undefined && rows !== datasetLength) {
      const what = `${datasetLength} rows along dimension 0, as the other feeds`;
      throw invalidArgument({ what, name: `${label}.dims`, value: tensor.dims, kind: 'range' });
    }
    if (tensor.data.length !== elementCount(tensor.dims)) {
      throw invalidArgument({ what: `${elementCount(tensor.dims)} elements for dims ${formatDims(tensor.dims)}`, name: `${label}.data`, value: tensor.data, kind: 'range' });
    }
    datasetLength = rows;
  }
  return datasetLength ?? 0;
}
