import { afterEach, describe, expect, it } from 'vitest';
import { DistributedSampler, NotInitializedError, init, shutdown } from '../../src/index.js';
import { Mt19937 } from '../../src/sampler/mt19937.js';
import { randperm } from '../../src/sampler/randperm.js';
import { useCleanEnv } from './clean-env.js';
import { createFakeBinding } from './fake-binding.js';

useCleanEnv();
afterEach(() => shutdown());

const lists = (
  options: {
    datasetLength: number;
    numReplicas: number;
    shuffle?: boolean;
    dropLast?: boolean;
    seed?: number;
  },
  epoch = 0,
) =>
  Array.from({ length: options.numReplicas }, (_, rank) => {
    const sampler = new DistributedSampler({ shuffle: false, ...options, rank });
    sampler.setEpoch(epoch);
    return sampler.indices();
  });

describe('DistributedSampler without shuffle (torch algorithm)', () => {
  it.each([
    [
      { datasetLength: 10, numReplicas: 3 },
      [
        [0, 3, 6, 9],
        [1, 4, 7, 0],
        [2, 5, 8, 1],
      ],
    ],
    [
      { datasetLength: 10, numReplicas: 3, dropLast: true },
      [
        [0, 3, 6],
        [1, 4, 7],
        [2, 5, 8],
      ],
    ],
    [
      { datasetLength: 9, numReplicas: 3, dropLast: true },
      [
        [0, 3, 6],
        [1, 4, 7],
        [2, 5, 8],
      ],
    ],
    [{ datasetLength: 2, numReplicas: 5 }, [[0], [1], [0], [1], [0]]],
    [{ datasetLength: 2, numReplicas: 5, dropLast: true }, [[], [], [], [], []]],
    [
      { datasetLength: 7, numReplicas: 4 },
      [
        [0, 4],
        [1, 5],
        [2, 6],
        [3, 0],
      ],
    ],
    [{ datasetLength: 7, numReplicas: 4, dropLast: true }, [[0], [1], [2], [3]]],
    [{ datasetLength: 0, numReplicas: 2 }, [[], []]],
  ])('%o gives %j', (options, expected) => {
    expect(lists(options)).toEqual(expected);
    const sampler = new DistributedSampler({ ...options, rank: 0, shuffle: false });
    expect(sampler.length).toBe(expected[0]?.length);
    expect(sampler.totalSize).toBe((expected[0]?.length ?? 0) * options.numReplicas);
    expect([...sampler]).toEqual(expected[0]);
  });
});

describe('shuffle', () => {
  it('uses MT19937 exactly (std::mt19937 reference values)', () => {
    const rng = new Mt19937(5489);
    let value = 0;
    for (let i = 0; i < 10000; i++) value = rng.next();
    expect(value).toBe(4123659995);
    const zero = new Mt19937(0);
    expect([zero.next(), zero.next()]).toEqual([2357136044, 2546248239]);
  });

  it('matches torch.randperm(10, generator seeded with s) on CPU', () => {
    expect(randperm({ n: 10, seed: 0 })).toEqual([4, 1, 7, 5, 3, 9, 0, 8, 6, 2]);
    expect(randperm({ n: 10, seed: 1 })).toEqual([5, 6, 1, 2, 0, 8, 9, 3, 7, 4]);
    expect(randperm({ n: 10, seed: 42 })).toEqual([2, 6, 1, 8, 4, 5, 0, 9, 3, 7]);
    expect(randperm({ n: 10, seed: 2 ** 32 + 1 })).toEqual([5, 6, 1, 2, 0, 8, 9, 3, 7, 4]);
  });

  it('strides the seed + epoch permutation across ranks', () => {
    expect(lists({ datasetLength: 10, numReplicas: 2, shuffle: true, seed: 0 })).toEqual([
      [4, 7, 3, 0, 6],
      [1, 5, 9, 8, 2],
    ]);
    expect(lists({ datasetLength: 10, numReplicas: 2, shuffle: true, seed: 41 }, 1)).toEqual(
      lists({ datasetLength: 10, numReplicas: 2, shuffle: true, seed: 42 }, 0),
    );
  });

  it('covers the whole permutation exactly, plus padding from its start', () => {
    const perRank = lists({ datasetLength: 103, numReplicas: 4, shuffle: true, seed: 7 }, 3);
    const all = perRank.flat();
    expect(all).toHaveLength(104);
    expect(new Set(all).size).toBe(103);
    const permutation = randperm({ n: 103, seed: 10 });
    const padded = [...permutation, permutation[0]];
    perRank.forEach((mine, rank) => expect(mine).toEqual(padded.filter((_, i) => i % 4 === rank)));
  });

  it('differs between epochs and repeats for equal seeds', () => {
    const options = { datasetLength: 50, numReplicas: 3, shuffle: true, seed: 5 };
    expect(lists(options, 0)).not.toEqual(lists(options, 1));
    expect(lists(options, 4)).toEqual(lists(options, 4));
    expect(lists({ ...options, seed: 6 }, 0)).not.toEqual(lists(options, 0));
  });
});

describe('options', () => {
  it('defaults numReplicas and rank from the running job', async () => {
    expect(() => new DistributedSampler({ datasetLength: 4 })).toThrow(NotInitializedError);
    await init({
      binding: createFakeBinding(),
      rank: 2,
      size: 3,
      store: { kind: 'file', path: '/tmp/x' },
    });
    const sampler = new DistributedSampler({ datasetLength: 9, shuffle: false });
    expect([
      sampler.numReplicas,
      sampler.rank,
      sampler.shuffle,
      sampler.seed,
      sampler.dropLast,
    ]).toEqual([3, 2, false, 0, false]);
    expect(sampler.indices()).toEqual([2, 5, 8]);
  });

  it.each([
    [
      { datasetLength: 4, numReplicas: 2, rank: 2 },
      'Expected an integer in [0, 1] for rank but received 2',
    ],
    [
      { datasetLength: -1, numReplicas: 2, rank: 0 },
      'Expected an integer >= 0 for datasetLength but received -1',
    ],
    [
      { datasetLength: 4, numReplicas: 0, rank: 0 },
      'Expected an integer >= 1 for numReplicas but received 0',
    ],
    [
      { datasetLength: 4, numReplicas: 1, rank: 0, seed: -1 },
      'Expected an integer >= 0 for seed but received -1',
    ],
    [
      { datasetLength: 4, numReplicas: 1, rank: 0, shuffle: 'yes' },
      "Expected a boolean for shuffle but received 'yes'",
    ],
    [
      { datasetLength: 4, numReplicas: 1, rank: 0, drop_last: true },
      "Unknown option 'drop_last' for DistributedSampler; did you mean 'dropLast'?",
    ],
  ])('rejects %o', (options, text) => {
    expect(() => new DistributedSampler(options as never)).toThrow(text);
  });

  it('validates the epoch', () => {
    const sampler = new DistributedSampler({ datasetLength: 4, numReplicas: 1, rank: 0 });
    expect(() => sampler.setEpoch(1.5)).toThrow(
      'Expected an integer >= 0 for epoch but received 1.5',
    );
    sampler.setEpoch(2);
    expect(sampler.epoch).toBe(2);
  });
});
