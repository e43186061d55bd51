import { describe, expect, it } from 'vitest';
import { KeyQueue } from '../../src/key-queue.js';
import { pairKeys } from '../../src/keys.js';
import { reduceLocal } from '../../src/local-reduce.js';
import { toFloat16Bits } from '../../src/index.js';

const isValue = (v: unknown) => ArrayBuffer.isView(v);

describe('pairKeys', () => {
  it('pairs one key with one value or a list of values', () => {
    const [a, b] = [new Float32Array(1), new Float32Array(1)];
    expect(pairKeys(3, a, { isValue, name: 'values' })).toEqual([{ key: 3, items: [a] }]);
    expect(pairKeys('w', [a, b], { isValue, name: 'values' })).toEqual([{ key: 'w', items: [a, b] }]);
  });

  it('groups repeated keys of a list in first-seen order, as MXNet groups key-value pairs', () => {
    const [a, b, c] = [new Float32Array(1), new Float32Array(1), new Float32Array(1)];
    expect(pairKeys([5, 2, 5], [a, b, [c]], { isValue, name: 'values' })).toEqual([
      { key: 5, items: [a, c] },
      { key: 2, items: [b] },
    ]);
  });

  it('rejects an empty list of values for a key', () => {
    expect(() => pairKeys([1], [[]], { isValue, name: 'values' })).toThrow('Expected one value or a non-empty list of values for values[0] but received []');
  });
});

describe('KeyQueue', () => {
  it('runs tasks on a key in call order even after a failure, and tasks on other keys independently', async () => {
    const queue = new KeyQueue();
    const order: string[] = [];
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = queue.run([1], async () => {
      await gate;
      order.push('1a');
      throw new Error('boom');
    });
    const second = queue.run([1, 2], async () => void order.push('1b+2'));
    const other = queue.run([3], async () => void order.push('3'));
    await other;
    release();
    await expect(first).rejects.toThrow('boom');
    await second;
    expect(order).toEqual(['3', '1a', '1b+2']);
  });
});

describe('reduceLocal', () => {
  it('reduces int64 with bigint arithmetic and float16 with half-precision rounding', () => {
    expect(Array.from(reduceLocal([BigInt64Array.of(2n ** 62n, -1n), BigInt64Array.of(2n ** 62n, 5n)], 'sum'))).toEqual([-(2n ** 63n), 4n]);
    const half = (...v: number[]) => Uint16Array.from(v, toFloat16Bits);
    // 2048 + 1 is not a half: it rounds to even (2048).
    expect(Array.from(reduceLocal([half(2048, 1), half(1, 2)], 'sum'))).toEqual(Array.from(half(2048, 3)));
    expect(Array.from(reduceLocal([Int8Array.of(100, -3), Int8Array.of(100, 7)], 'max'))).toEqual([100, 7]);
  });
});
