// Allgather bandwidth in nccl-tests' layout: size = total output bytes (each rank sends
// size/n), GB = 1e9, busbw = algbw * (n-1)/n.
// Run through the root script: npm run bench -- allgather [--np N] [--transport gloo,mpi]
import * as kolo from '@kolo/core';
import { medianMicros, warmUp } from './warm-up.mjs';

await kolo.init();
const rank = kolo.rank();
const size = kolo.size();
const minBytes = Number(process.env.KOLO_BENCH_MIN_BYTES ?? 4096);
const maxBytes = Number(process.env.KOLO_BENCH_MAX_BYTES ?? 64 * 1024 * 1024);
const json = process.env.KOLO_BENCH_JSON === '1';
// Gathers into one preallocated output (the `output` option), as the C baselines gather into
// their receive buffer; KOLO_BENCH_NEW_ARRAYS=1 times the default instead, a new array per call.
const newArrays = process.env.KOLO_BENCH_NEW_ARRAYS === '1';

const pad = (v, w) => String(v).padStart(w);
if (rank === 0 && !json) {
  console.log(`# kolo allgather benchmark: ${size} ranks, transport ${kolo.capabilities().transports[0]}, float32, GB = 1e9`);
  console.log(`#${pad('size', 11)}${pad('count', 13)}${pad('type', 9)}${pad('redop', 7)}${pad('time', 11)}${pad('algbw', 8)}${pad('busbw', 8)}${pad('#wrong', 7)}`);
  console.log(`#${pad('(B)', 11)}${pad('(elements)', 13)}${pad('', 9)}${pad('', 7)}${pad('(us)', 11)}${pad('(GB/s)', 8)}${pad('(GB/s)', 8)}${pad('', 7)}`);
}
const warm = new Float32Array(256);
await warmUp(() => kolo.allgather(warm, { name: 'bench.warmup' }));
let busSum = 0;
let rows = 0;
for (let step = minBytes; step <= maxBytes; step *= 4) {
  // As nccl-tests: every rank contributes floor(size / n) bytes' worth of whole floats.
  const perRank = Math.max(1, Math.floor(step / 4 / size));
  const count = perRank * size;
  const bytes = count * 4;
  const data = new Float32Array(perRank).fill(rank + 1);
  // As the allreduce bench: up to 2000 iterations, and the median of per-iteration times, which
  // one preempted iteration on a shared machine does not move.
  const iters = Math.max(5, Math.min(2000, Math.floor((256 * 1024 * 1024) / bytes / 4)));
  const options = { name: 'bench', output: newArrays ? undefined : new Float32Array(count) };
  const us = await medianMicros(iters, () => kolo.allgather(data, options));
  // Rank r's block holds r + 1 everywhere.
  options.output?.fill(0);
  const out = (await kolo.allgather(data, options)).data;
  let wrong = Math.abs(out.length - count);
  for (let i = 0; i < Math.min(out.length, count); i += 1) if (out[i] !== Math.floor(i / perRank) + 1) wrong += 1;
  const algbw = bytes / 1e9 / (us / 1e6);
  const busbw = (algbw * (size - 1)) / size;
  busSum += busbw;
  rows += 1;
  if (rank === 0 && json) {
    console.log(`BENCH ${JSON.stringify({ bytes, count, us, algbw, busbw, wrong })}`);
  } else if (rank === 0) {
    console.log(` ${pad(bytes, 11)}${pad(count, 13)}${pad('float', 9)}${pad('none', 7)}${pad(us.toFixed(1), 11)}${pad(algbw.toFixed(2), 8)}${pad(busbw.toFixed(2), 8)}${pad(wrong, 7)}`);
  }
}
if (rank === 0 && !json) console.log(`# Avg bus bandwidth    : ${(busSum / rows).toFixed(3)}`);
await kolo.shutdown();
