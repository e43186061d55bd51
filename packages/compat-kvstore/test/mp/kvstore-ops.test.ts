import { describe, expect, it } from 'vitest';
import * as f from './workers/fixtures.mjs';
import { perRank, runJob, type JobResult } from './run-job.js';

// Expected values come from the fixtures, never from the engine; every input is exact in float32.
const ranks = (size: number): number[] => Array.from({ length: size }, (_, r) => r);
const sumOver = (size: number, value: (r: number) => number[]): number[] =>
  ranks(size).reduce<number[]>((acc, r) => value(r).map((v, i) => (acc[i] ?? 0) + v), []);
const same = <T>(size: number, value: T): T[] => ranks(size).map(() => value);

describe.each([2, 3, 4])('KVStore operations on %i workers', (size) => {
  let job: JobResult;
  const results = async (key: string): Promise<unknown[]> => {
    job ??= await runJob(size, 'kvstore-ops.mjs');
    expect(job.code, job.stderr).toBe(0);
    return perRank(job, key, size);
  };
  const pushSum = sumOver(size, f.pushValue);

  it('reports the store type and topology with snake_case aliases', { timeout: 120_000 }, async () => {
    expect(await results('topology')).toEqual(
      ranks(size).map((r) => ({ type: 'dist_sync_kolo', rank: r, numWorkers: size, localRank: r, local_rank: r, num_workers: size })),
    );
  });

  it("init stores rank 0's value on every worker", async () => {
    expect(await results('init')).toEqual(same(size, f.initValue(0)));
  });

  it('push sums over workers and replaces the stored value; priorities change nothing', async () => {
    expect(await results('push.sum')).toEqual(same(size, pushSum));
    expect(await results('push.priority')).toEqual(same(size, [pushSum, pushSum]));
  });

  it('sums several values of one key locally first, and pulls into every output', async () => {
    const device = sumOver(size, (r) => sumOver(2, (d) => f.deviceValues(r)[d] as number[]));
    expect(await results('push.multi')).toEqual(same(size, [device, device]));
  });

  it('pushes and pulls a list of keys', async () => {
    const expected = [sumOver(size, (r) => f.listValues(r)[0] as number[]), sumOver(size, (r) => f.listValues(r)[1] as number[])];
    expect(await results('push.list')).toEqual(same(size, expected));
  });

  it('reduces int32, float64 and float16 values exactly', async () => {
    const expected = [sumOver(size, f.intValue), sumOver(size, f.f64Value), sumOver(size, f.f16Ints)];
    expect(await results('push.dtypes')).toEqual(same(size, expected));
  });

  it('pushpull writes into the values or out, and a pull waits for an earlier push', async () => {
    expect(await results('pushpull')).toEqual(same(size, [pushSum, pushSum, pushSum.map((v) => 2 * v)]));
  });

  it("broadcast gives rank 0's value; rowSparsePull keeps only the requested rows", async () => {
    const rows = f.sparseValue(0).map((v, i) => (f.sparseRows.includes(Math.floor(i / 2)) ? v : 0));
    expect(await results('broadcast.rowSparse')).toEqual(same(size, [f.initValue(0), rows]));
  });

  it('string keys: paramOnly buffers take max and min, the optimizer updates only other keys', async () => {
    const counts = f.counts.slice(0, size);
    const w = [1 - sumOver(size, (r) => [r])[0]!, 2 - size];
    expect(await results('strings')).toEqual(same(size, [[Math.max(...counts)], [Math.min(...counts)], w]));
  });

  it('2-bit compression sends -t, 0 or +t per worker with error feedback; fp16 rounds to half precision', async () => {
    // Per worker, step 1: r = g -> codes +, -, 0, sign; residuals 0.25, -0.25, 0.25, 0.
    // Step 2: r = 1, -1, 0.5, +-0.5 -> codes +, -, +, sign.
    const odd = ranks(size).filter((r) => r % 2 === 1).length;
    const last = 0.5 * (odd - (size - odd));
    const step1 = [0.5 * size, -0.5 * size, 0, last];
    const step2 = [0.5 * size, -0.5 * size, 0.5 * size, last];
    const half = [size, sumOver(size, (r) => [f.fp16Grad(r)[1]!])[0]];
    expect(await results('compression')).toEqual(same(size, [step1, step2, half]));
  });

  it("the horovod store sums with pushpull and broadcasts repeatedly; it cannot run an optimizer", async () => {
    expect(await results('horovod')).toEqual(same(size, [pushSum, f.initValue(0), false]));
    const push = "The 'horovod' kvstore has no push() (as MXNet's Horovod store): use pushpull() and broadcast(), or create('dist_sync_kolo') for init, push and pull.";
    const compression = "Gradient compression is not supported for this type of kvstore (horovod); use 'device' (several values per key in one process) or 'dist_sync_kolo'.";
    const unsupported = (message: string) => ({ name: 'UnsupportedError', code: 'KOLO_UNSUPPORTED', message });
    expect(await results('horovod.refused')).toEqual(same(size, [unsupported(push), unsupported(compression)]));
    expect(await results('done')).toEqual(same(size, true));
  });
});
