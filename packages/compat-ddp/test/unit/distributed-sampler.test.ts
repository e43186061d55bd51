import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DistributedSampler } from '../../src/index.js';

interface SamplerCase {
  length: number;
  numReplicas: number;
  shuffle: boolean;
  seed: number;
  dropLast: boolean;
  ranks: { rank: number; len: number; epochs: number[][] }[];
}
interface Fixture {
  torch: string;
  epochs: number[];
  samplers: SamplerCase[];
  randperm: { n: number; seed: number; perm: number[] }[];
}

// Written by scripts/fixtures/torch/distributed_sampler.py with real torch.
const fixture = JSON.parse(readFileSync(new URL('../fixtures/distributed-sampler.torch.json', import.meta.url), 'utf8')) as Fixture;

describe("DistributedSampler against torch's own output", () => {
  it('covers the required cases', () => {
    const has = (length: number, numReplicas: number, dropLast: boolean, shuffle: boolean, seed: number) =>
      fixture.samplers.some((c) => c.length === length && c.numReplicas === numReplicas && c.dropLast === dropLast && c.shuffle === shuffle && c.seed === seed);
    for (const shuffle of [false, true]) {
      for (const seed of [0, 42]) {
        expect(has(10, 3, false, shuffle, seed)).toBe(true);
        expect(has(11, 4, false, shuffle, seed)).toBe(true);
        expect(has(11, 4, true, shuffle, seed)).toBe(true);
      }
    }
    expect(fixture.epochs).toEqual([0, 1, 2]);
  });

  it.each(fixture.samplers.map((c) => [`${c.length} on ${c.numReplicas}, shuffle ${c.shuffle}, seed ${c.seed}, dropLast ${c.dropLast}`, c] as const))(
    'yields torch’s indices for %s in epochs 0, 1 and 2',
    (_, c) => {
      for (const expected of c.ranks) {
        const sampler = new DistributedSampler(c.length, { numReplicas: c.numReplicas, rank: expected.rank, shuffle: c.shuffle, seed: c.seed, dropLast: c.dropLast });
        expect(sampler.length).toBe(expected.len);
        const got = fixture.epochs.map((epoch) => {
          sampler.setEpoch(epoch);
          return [...sampler];
        });
        expect(got).toEqual(expected.epochs);
      }
    },
  );

  it.each(fixture.randperm.map((c) => [c.n, c.seed, c.perm] as const))('shuffles %i items with seed %i as torch.randperm', (n, seed, perm) => {
    expect(new DistributedSampler(n, { numReplicas: 1, rank: 0, seed }).indices()).toEqual(perm);
  });

  it('takes an array-like dataset and checks the rank with torch’s message', () => {
    expect(new DistributedSampler(['a', 'b', 'c'], { numReplicas: 2, rank: 1, shuffle: false }).indices()).toEqual([1, 0]);
    expect(() => new DistributedSampler(10, { numReplicas: 3, rank: 3 })).toThrow('Invalid rank 3, rank should be in the interval [0, 2]');
    expect(() => new DistributedSampler(10, { numReplicas: 3, rank: -1 })).toThrow('Invalid rank -1, rank should be in the interval [0, 2]');
    expect(() => new DistributedSampler(-1, { numReplicas: 3, rank: 0 })).toThrow('Expected a dataset with a length, or a non-negative integer length for dataset but received -1');
  });

  it('needs an initialized process group for its defaults, as torch', () => {
    expect(() => new DistributedSampler(10)).toThrow('Default process group has not been initialized, please make sure to call init_process_group.');
  });
});
