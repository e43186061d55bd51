import { describe, expect, it } from 'vitest';
import { shardRows, takeRows } from '../../src/inference/shard-rows.js';

const split = (datasetLength: number, numReplicas: number) =>
  Array.from({ length: numReplicas }, (_, rank) => shardRows({ datasetLength, numReplicas, rank }));

describe('shardRows', () => {
  it('drops the padding of the sampler so every row runs exactly once', () => {
    expect(split(10, 3)).toEqual([[0, 3, 6, 9], [1, 4, 7], [2, 5, 8]]);
    expect(split(9, 3)).toEqual([[0, 3, 6], [1, 4, 7], [2, 5, 8]]);
    expect(split(2, 3)).toEqual([[0], [1], []]);
    expect(split(1, 1)).toEqual([[0]]);
  });
});

describe('takeRows', () => {
  it('copies the requested rows in the requested order', () => {
    expect(takeRows(Float32Array.of(0, 1, 2, 3, 4, 5), { rowLength: 2, rows: [2, 0] })).toEqual(Float32Array.of(4, 5, 0, 1));
    expect(takeRows(BigInt64Array.of(7n, 8n, 9n), { rowLength: 1, rows: [1] })).toEqual(BigInt64Array.of(8n));
  });
});
