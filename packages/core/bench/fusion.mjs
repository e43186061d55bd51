// Fusion and negotiation: N named float32 tensors of 4 KiB submitted together (Promise.all)
// against one allreduce of the same N x 4 KiB, median time over repetitions on rank 0, each
// timed from a barrier. Issue #9's target: 200 tensors in <= 2x the time of one 800 KiB allreduce.
// The "grouped" column submits the same N tensors as one groupedAllreduce call.
// Run through the root script: npm run bench -- fusion [--np 2,3] [--reps R] [--tensors 50,200,1000]
// (the driver is drivers/fusion.mjs); KOLO_BENCH_FUSION_TENSORS and KOLO_BENCH_REPS reach here.
import * as kolo from '@kolo/core';
import { median, pad } from './drivers/launch.mjs';
import { warmUp } from './warm-up.mjs';

await kolo.init();
const rank = kolo.rank();
const size = kolo.size();
const tensorCounts = (process.env.KOLO_BENCH_FUSION_TENSORS ?? '50,200,1000').split(',').map(Number);
const reps = Number(process.env.KOLO_BENCH_REPS ?? 20);
const json = process.env.KOLO_BENCH_JSON === '1';
const elements = 1024;

const submitUs = [];
const warm = new Float32Array(elements);
await warmUp(() => kolo.allreduce(warm, { op: 'sum', output: warm, name: 'fusion.warmup' }));

async function timed(fn) {
  await kolo.barrier();
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1000;
}

if (rank === 0 && !json) console.log(`#${pad('ranks', 6)}${pad('tensors', 8)}${pad('total(B)', 10)}${pad('many(us)', 11)}${pad('submit(us)', 11)}${pad('one(us)', 11)}${pad('ratio', 8)}${pad('grouped(us)', 12)}${pad('ratio', 8)}${pad('#wrong', 7)}${pad('paired', 8)}${pad('g.paired', 9)}`);
for (const n of tensorCounts) {
  // Tensor i holds rank + 1 + (i % 3), so a swapped or misplaced tensor shows up as wrong.
  const inputs = Array.from({ length: n }, (_, i) => new Float32Array(elements).fill(rank + 1 + (i % 3)));
  const outputs = inputs.map(() => new Float32Array(elements));
  const big = new Float32Array(elements * n).fill(rank + 1);
  const bigOut = new Float32Array(elements * n);
  // Also records how long the JS calls alone take (validation, request, pinning), before any wait.
  const many = () => {
    const t0 = process.hrtime.bigint();
    const all = Promise.all(inputs.map((x, i) => kolo.allreduce(x, { op: 'sum', output: outputs[i], name: `fusion.${n}.${i}` })));
    submitUs.push(Number(process.hrtime.bigint() - t0) / 1000);
    return all;
  };
  const one = () => kolo.allreduce(big, { op: 'sum', output: bigOut, name: `fusion.one.${n}` });
  const groupOutputs = inputs.map(() => new Float32Array(elements));
  const grouped = () => kolo.groupedAllreduce(inputs, { op: 'sum', outputs: groupOutputs, name: `fusion.group.${n}` });
  for (let i = 0; i < 10; i += 1) {
    await many();
    await one();
    await grouped();
  }
  const manyUs = [];
  const oneUs = [];
  const groupedUs = [];
  submitUs.length = 0;
  // Rotating which goes first spreads the machine's load changes over all three.
  const order = [[many, manyUs], [one, oneUs], [grouped, groupedUs]];
  for (let r = 0; r < reps; r += 1) {
    for (let k = 0; k < order.length; k += 1) {
      const [fn, times] = order[(r + k) % order.length];
      times.push(await timed(fn));
    }
  }
  const base = (size * (size + 1)) / 2;
  let wrong = 0;
  for (const outs of [outputs, groupOutputs]) {
    outs.forEach((out, i) => out.forEach((v) => (wrong += v !== base + size * (i % 3) ? 1 : 0)));
  }
  bigOut.forEach((v) => (wrong += v !== base ? 1 : 0));
  const row = { np: size, tensors: n, bytes: n * elements * 4, manyUs: median(manyUs), oneUs: median(oneUs), groupedUs: median(groupedUs), submitUs: median(submitUs), wrong, reps };
  row.ratio = row.manyUs / row.oneUs;
  row.groupedRatio = row.groupedUs / row.oneUs;
  // The same ratios within each repetition (its three timings back to back), then their median:
  // a change of the machine's speed slower than one repetition falls on both sides of each.
  row.pairedRatio = median(manyUs.map((t, r) => t / oneUs[r]));
  row.groupedPairedRatio = median(groupedUs.map((t, r) => t / oneUs[r]));
  if (rank === 0 && json) console.log(`BENCH ${JSON.stringify(row)}`);
  else if (rank === 0) console.log(` ${pad(size, 6)}${pad(n, 8)}${pad(row.bytes, 10)}${pad(row.manyUs.toFixed(0), 11)}${pad(row.submitUs.toFixed(0), 11)}${pad(row.oneUs.toFixed(0), 11)}${pad(row.ratio.toFixed(2) + 'x', 8)}${pad(row.groupedUs.toFixed(0), 12)}${pad(row.groupedRatio.toFixed(2) + 'x', 8)}${pad(wrong, 7)}${pad(row.pairedRatio.toFixed(2) + 'x', 8)}${pad(row.groupedPairedRatio.toFixed(2) + 'x', 9)}`);
}
await kolo.shutdown();
