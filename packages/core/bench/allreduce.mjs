// Allreduce bandwidth in nccl-tests' layout (GB = 1e9; busbw = algbw * 2(n-1)/n).
// Run through the root script: npm run bench -- allreduce [--np N] [--transport gloo,mpi]
import * as kolo from '@kolo/core';
import { medianMicros, warmUp } from './warm-up.mjs';

await kolo.init();
const rank = kolo.rank();
const size = kolo.size();
const minBytes = Number(process.env.KOLO_BENCH_MIN_BYTES ?? 4096);
const maxBytes = Number(process.env.KOLO_BENCH_MAX_BYTES ?? 64 * 1024 * 1024);
const factor = 4;
// KOLO_BENCH_SYNC=1 (the `-sync` columns): time the blocking allreduceSync instead.
const sync = process.env.KOLO_BENCH_SYNC === '1';
// KOLO_BENCH_IN_PLACE=1: reduce in place (`output` is `data`), as the C/C++ baselines then do;
// otherwise into a separate output, as they do by default (nccl-tests' out-of-place column).
const inPlace = process.env.KOLO_BENCH_IN_PLACE === '1';

const pad = (v, w) => String(v).padStart(w);
if (rank === 0 && process.env.KOLO_BENCH_JSON !== '1') {
  console.log(`# kolo allreduce benchmark: ${size} ranks, transport ${kolo.capabilities().transports[0]}, float32 sum, GB = 1e9`);
  console.log(`#${pad('size', 11)}${pad('count', 13)}${pad('type', 9)}${pad('redop', 7)}${pad('time', 11)}${pad('algbw', 8)}${pad('busbw', 8)}${pad('#wrong', 7)}`);
  console.log(`#${pad('(B)', 11)}${pad('(elements)', 13)}${pad('', 9)}${pad('', 7)}${pad('(us)', 11)}${pad('(GB/s)', 8)}${pad('(GB/s)', 8)}${pad('', 7)}`);
}
{
  const warm = new Float32Array(1024);
  await warmUp(() =>
    sync
      ? kolo.allreduceSync(warm, { op: 'sum', output: warm, name: 'bench.warmup' })
      : kolo.allreduce(warm, { op: 'sum', output: warm, name: 'bench.warmup' }),
  );
}
let busSum = 0;
let rows = 0;
for (let bytes = minBytes; bytes <= maxBytes; bytes *= factor) {
  const count = bytes / 4;
  const data = new Float32Array(count).fill(rank + 1);
  const out = inPlace ? data : new Float32Array(count);
  // Up to 2000 iterations at the small sizes, where 200 left the median to the first steps after
  // a size change; fewer for large buffers keeps the whole run near a minute on 2 cores.
  const iters = Math.max(5, Math.min(2000, Math.floor((256 * 1024 * 1024) / bytes / 4)));
  const call = sync
    ? () => kolo.allreduceSync(data, { op: 'sum', output: out, name: 'bench' })
    : () => kolo.allreduce(data, { op: 'sum', output: out, name: 'bench' });
  // The median of per-iteration times: one preempted iteration on a shared machine does not move it.
  const us = await medianMicros(iters, call, { sync });
  // In place, the timed calls summed the sums (to infinity): check one more call on fresh data.
  if (inPlace) {
    data.fill(rank + 1);
    await kolo.allreduce(data, { op: 'sum', output: out, name: 'bench' });
  }
  const want = (size * (size + 1)) / 2;
  let wrong = 0;
  for (let i = 0; i < count; i += 1) if (out[i] !== want) wrong += 1;
  const algbw = bytes / 1e9 / (us / 1e6);
  const busbw = (algbw * 2 * (size - 1)) / size;
  busSum += busbw;
  rows += 1;
  if (rank === 0 && process.env.KOLO_BENCH_JSON === '1') {
    console.log(`BENCH ${JSON.stringify({ bytes, count, us, algbw, busbw, wrong })}`);
  } else if (rank === 0) {
    console.log(` ${pad(bytes, 11)}${pad(count, 13)}${pad('float', 9)}${pad('sum', 7)}${pad(us.toFixed(1), 11)}${pad(algbw.toFixed(2), 8)}${pad(busbw.toFixed(2), 8)}${pad(wrong, 7)}`);
  }
}
if (rank === 0 && process.env.KOLO_BENCH_JSON !== '1') console.log(`# Avg bus bandwidth    : ${(busSum / rows).toFixed(3)}`);
await kolo.shutdown();
