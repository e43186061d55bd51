import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  adasumMessage,
  alltoallMessages,
  fromFloat16Bits,
  notInitializedText,
  opSupersedesAverage,
  reducescatterOpsText,
  toFloat16Bits,
} from '../../src/index.js';
import { DIMS, DTYPES, inputs } from './workers/fixtures.mjs';
import { type JobResult, perRank, runJob } from './run-job.js';
import { cast, ranks, zip, sum, json, same, perRankTensor, scatterBlock, mismatch, mismatchTexts, argError, unsupported, duplicateText, expectedProcessSets, localMismatch, type TimelineEvent } from './horovod-expected.js';

describe.each([2, 3, 4])("Horovod's parallel tests on %i ranks", (size) => {
  let job: JobResult;
  const all = ranks(size);
  const got = (key: string): unknown[] => perRank(job, key, size);

  const dir = mkdtempSync(join(tmpdir(), 'kolo-hvd-timeline-'));

  beforeAll(async () => {
    job = await runJob(size, 'horovod-parallel.mjs', { args: [dir] });
  }, 180_000);

  it('exits 0 and warns once per rank about the deprecated average argument', () => {
    expect(job.code, job.stderr).toBe(0);
    const warning = 'DeprecationWarning: Parameter `average` has been replaced with `op` and will be removed in v1.0';
    for (const r of all) {
      expect(job.stderr.split('\n').filter((l) => l.startsWith(`[${r}]<stderr>:`) && l.includes(warning))).toHaveLength(1);
    }
  });

  it('reports the launcher topology (test_horovod_rank, _size, is_initialized)', () => {
    expect(got('identity')).toEqual(
      all.map((r) => ({
        rank: r, size, localRank: r, localSize: size, crossRank: 0, crossSize: 1, homogeneous: true,
        initialized: true, env: [String(r), String(size), String(r)], gloo: [true, true, false],
      })),
    );
  });

  it('allreduces with average=False and average=True without touching the input (1-3D, 4 dtypes)', () => {
    for (const dtype of DTYPES) {
      for (const d of DIMS.keys()) {
        const x = inputs.identical(d);
        const summed = x.map((v) => v * size);
        const avg = summed.map((v) => cast(dtype, v * (1 / size)));
        expect(got(`allreduce.${dtype}.${d}`), `${dtype} ${d}`).toEqual(same(size, { sum: summed, avg, unchanged: true, fresh: true }));
      }
    }
  });

  it('reduces with Min, Max, Product and scales with prescale and postscale factors', () => {
    for (const dtype of DTYPES) {
      const mine = perRankTensor(size, 1, 20);
      const small = perRankTensor(size, 2, 20, -3, 4);
      const f = inputs.factor;
      expect(got(`allreduce.ops.${dtype}`), dtype).toEqual(
        same(size, {
          min: zip(mine, (xs) => Math.min(...xs)),
          max: zip(mine, (xs) => Math.max(...xs)),
          product: zip(small, (xs) => xs.reduce((a, b) => a * b, 1)),
          prescale: zip(mine, (xs) => sum(xs.map((v) => cast(dtype, v * f)))),
          postscale: zip(mine, (xs) => cast(dtype, sum(xs) * f)),
        }),
      );
      expect(got(`allreduce.inplace.${dtype}`)).toEqual(same(size, { values: zip(perRankTensor(size, 3, 20), sum), same: true }));
    }
  });

  it('completes many async allreduces in flight together; a used handle is refused', () => {
    const values = DTYPES.flatMap(() => DIMS.map((_, d) => inputs.identical(d).map((v) => v * size)));
    const again = argError(
      'RangeError',
      'Expected a handle from an …Async call that was not yet synchronized (synchronize) for handle but received 0',
    );
    expect(got('allreduce.async')).toEqual(same(size, { polled: Array(12).fill('boolean'), values, again }));
  });

  it('sums float16 data and compresses float32 to float16 and back (test_compression_fp16)', () => {
    const half = (v: number): number => fromFloat16Bits(toFloat16Bits(v));
    const x = perRankTensor(size, 5, 8).map((row) => row.map((v) => half(Math.fround(v / 10))));
    expect(got('float16')).toEqual(
      same(size, {
        halves: zip(perRankTensor(size, 4, 8), sum),
        compressed: zip(x, (xs) => half(sum(xs))),
        compressedType: 'Float32Array',
        ints: [sum(all)],
      }),
    );
  });

  it('reduces groups (sum, average, in place with Max)', () => {
    const group = (k: number): number[][] => perRankTensor(size, 10 + k, 3 + k);
    expect(got('grouped')).toEqual(
      same(size, {
        sum: [0, 1, 2].map((k) => zip(group(k), sum)),
        average: [0, 1, 2].map((k) => zip(group(k), (xs) => Math.fround(sum(xs) * (1 / size)))),
        inplace: [0, 1, 2].map((k) => zip(group(k), (xs) => Math.max(...xs))),
        same: true,
      }),
    );
  });

  it('allgathers rank-filled and variable-size tensors in rank order', () => {
    const filled = all.flatMap((r) => Array(6).fill(r));
    const variable = all.flatMap((r) => inputs.perRank(r, 20, inputs.gatherRows(r) * 3));
    for (const dtype of DTYPES) expect(got(`allgather.${dtype}`), dtype).toEqual(same(size, { filled, variable }));
  });

  it("broadcasts every root's tensor, leaving the input alone, and in place", () => {
    const roots = all.map((root) => ({ out: inputs.perRank(root, 30, 6), unchanged: true }));
    const inplace = inputs.perRank(size - 1, 31, 4);
    for (const dtype of DTYPES) expect(got(`broadcast.${dtype}`), dtype).toEqual(same(size, { roots, inplace, same: true }));
  });

  it('alltoalls with explicit splits, equal splits and rows past the splits', () => {
    for (const dtype of DTYPES) {
      expect(got(`alltoall.${dtype}`), dtype).toEqual(
        all.map((me) => {
          const data = all.flatMap((r) => Array((r + 1) * 2).fill(me));
          return {
            data,
            received: all.map((r) => r + 1),
            receivedType: 'Int32Array',
            equal: data,
            partial: all.flatMap((r) => [me * 10 + r, me * 10 + r]),
            partialSplits: Array(size).fill(1),
          };
        }),
      );
    }
    expect(got('alltoall.errors')).toEqual(
      same(size, {
        count: argError('RangeError', alltoallMessages.wrongCount),
        sum: argError('RangeError', alltoallMessages.tooMany),
        type: argError('TypeError', alltoallMessages.notInt32),
        oneD: argError('TypeError', alltoallMessages.notOneD),
        even: argError('RangeError', alltoallMessages.notEven),
      }),
    );
  });

  it('reducescatters uneven rows with Sum, Average (default), prescale and postscale', () => {
    const rows = inputs.scatterRows(size);
    const x = perRankTensor(size, 40, rows * 3);
    const f = inputs.factor;
    for (const dtype of DTYPES) {
      const full = {
        sum: zip(x, sum),
        average: zip(x, (xs) => cast(dtype, sum(xs) * (1 / size))),
        prescale: zip(x, (xs) => sum(xs.map((v) => cast(dtype, v * f)))),
        postscale: zip(x, (xs) => cast(dtype, sum(xs) * f)),
      };
      const block = (me: number, values: number[]): number[] => {
        const [start, count] = scatterBlock(rows, size, me);
        return values.slice(start * 3, (start + count) * 3);
      };
      expect(got(`reducescatter.${dtype}`), dtype).toEqual(
        all.map((me) => json({
          sum: block(me, full.sum),
          average: block(me, full.average),
          prescale: block(me, full.prescale),
          postscale: block(me, full.postscale),
        })),
      );
    }
  });

  it('refuses Adasum, reducescatter Min, 0-d reducescatter, op with average and process sets', () => {
    expect(got('unsupported')).toEqual(
      same(size, {
        adasum: unsupported(adasumMessage('allreduce')),
        scatterMin: unsupported(`reducescatter: ${reducescatterOpsText}`),
        scatterAdasum: unsupported(adasumMessage('reducescatter')),
        scatterScalar: argError('RangeError', 'Expected a shape with at least one dimension for shape but received []'),
        both: argError('TypeError', opSupersedesAverage),
        processSet: argError('TypeError', "Expected a ProcessSet from addProcessSet() for processSet but received 'evens'"),
      }),
    );
  });

  it('fails every mismatch on every rank with Horovod\'s words, and keeps running', () => {
    for (const [rule, text] of Object.entries(mismatchTexts(size))) {
      expect(got(`mismatch.${rule}`), rule).toEqual(same(size, mismatch(rule, text)));
      expect(got(`mismatch.${rule}.after`), rule).toEqual(same(size, [sum(all.map((r) => r + 1))]));
    }
  });

  it('fails a second in-flight request with the same name on that rank only', () => {
    const firsts: Record<string, number[]> = {
      allreduce: Array(size).fill(size),
      allgather: Array(size * size).fill(1),
      broadcast: Array(size).fill(1),
      reducescatter: [size],
    };
    for (const [op, first] of Object.entries(firsts)) {
      expect(got(`duplicate.${op}`), op).toEqual(
        all.map((r) => ({
          second: {
            name: 'MismatchError',
            code: 'KOLO_DUPLICATE_NAME',
            message: `duplicate.${op}.${r} failed on rank ${r}: ${duplicateText}. (name: 'duplicate.${op}.${r}'). A request with this name is still in flight; wait for it or use a different name.`,
          },
          first,
        })),
      );
    }
  });

  it('averages over size() with zeros from a joined rank, and join returns the same last rank everywhere', () => {
    const x = inputs.identical(0);
    for (const joiner of [0, 1]) {
      const reports = got(`join.${joiner}`) as { last: number; ints?: number[]; floats?: number[] }[];
      const last = reports[0]?.last as number;
      expect(all.filter((r) => r !== joiner)).toContain(last);
      expect(reports).toEqual(
        all.map((r) =>
          r === joiner
            ? { last }
            : json({
                ints: x.map((v) => Math.trunc(v * (size - 1) * (1 / size))),
                floats: x.map((v) => Math.fround(v * (size - 1) * (1 / size))),
                last,
              }),
        ),
      );
    }
  });

  it('fails allgather and broadcast while a rank is joined (test_horovod_join_allgather, _broadcast)', () => {
    const reports = got('join.others') as { last: number }[];
    const last = reports[0]?.last as number;
    expect(last).not.toBe(0);
    const joined = (name: string, r: number, text: string) =>
      unsupported(`${name} failed on rank ${r}: ${text.replace(/\.$/, '')}. capabilities() lists what this build supports.`);
    expect(reports).toEqual(
      all.map((r) =>
        r === 0
          ? { last }
          : {
              gather: joined('join.allgather', r, 'Allgather is not supported with Join at this time.'),
              bcast: joined('join.broadcast', r, 'Broadcast is not supported with Join at this time.'),
              last,
            },
      ),
    );
  });

  it('broadcasts and allgathers objects (test_broadcast_object, test_allgather_object)', () => {
    const gathered = all.map((r) => ({ metric_val_1: r, ...(r === 1 && { metric_val_2: 42 }) }));
    expect(got('objects')).toEqual(same(size, { fromZero: { hello: 123, 0: [1, 2] }, fromLast: ['last', size], gathered }));
  });

  it('runs every collective over a process set with global roots and set-sized averages', () => {
    expect(got('processSets')).toEqual(expectedProcessSets(size));
    const removed = (r: number) =>
      localMismatch(`removed@ps1 failed on rank ${r}: Process set 1 is not registered (it was never added, or has been removed).`);
    expect(got('processSets.removed')).toEqual(all.map((r) => ({ removed: [true, true], after: removed(r) })));
  });

  it('completes collectives issued before a barrier', () => {
    expect(got('barrier')).toEqual(same(size, [[0], [size], [2 * size]]));
  });

  it('writes a timeline that parses as JSON with negotiation and allreduce phases (test_timeline_api)', () => {
    const read = (file: string, tensor: string) => {
      const events = JSON.parse(readFileSync(join(dir, file), 'utf8')) as TimelineEvent[];
      const pid = events.find((e) => e.name === 'process_name' && e.args?.name === tensor)?.pid;
      const rows = events.filter((e) => e.pid === pid && e.ph !== 'M');
      return {
        header: typeof events[0]?.args?.start_time_since_epoch_in_micros,
        cycles: events.some((e) => e.name === 'CYCLE_START'),
        negotiation: rows.slice(0, size + 2).map((e) => `${e.ph} ${e.name}`).sort(),
        op: `${rows[size + 2]?.ph} ${rows[size + 2]?.name}`,
        end: rows[rows.length - 1],
      };
    };
    const negotiation = ['B NEGOTIATE_ALLREDUCE', 'E ', ...all.map((r) => `X ${r}`)].sort();
    // The tensor's row follows the barrier's (the worker's barrier after each start: pid 1).
    const end = (ts: number) => ({ ph: 'E', ts, pid: 2, args: { dtype: 'float32', shape: '[2]' } });
    const marked = read('timeline.marked.json', 'test_allreduce');
    const restarted = read('timeline.restarted.json', 'test_allreduce.restarted');
    expect(marked).toEqual({ header: 'number', cycles: true, negotiation, op: 'B ALLREDUCE', end: end(marked.end?.ts ?? -1) });
    expect(restarted).toEqual({ header: 'number', cycles: false, negotiation, op: 'B ALLREDUCE', end: end(restarted.end?.ts ?? -1) });
  });

  it("gives Horovod's message after shutdown and re-initializes with the same rank (test_horovod_reinit)", () => {
    const notInit = { name: 'NotInitializedError', code: 'KOLO_NOT_INITIALIZED', message: notInitializedText };
    expect(got('afterShutdown')).toEqual(same(size, { initialized: false, allreduce: notInit, rank: notInit, broadcastObject: notInit }));
    expect(got('reinit')).toEqual(all.map((r) => ({ rank: r, size, sum: [sum(all)] })));
  });
});
