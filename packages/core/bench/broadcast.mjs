// Broadcast bandwidth in nccl-tests' layout: root 0, size = bytes broadcast, GB = 1e9,
// busbw = algbw.
// Run through the root script: npm run bench -- broadcast [--np N] [--transport gloo,mpi]
import * as kolo from '@kolo/core';
import { medianMicros, warmUp } from './warm-up.mjs';

await kolo.init();
const rank = kolo.rank();
const size = kolo.size();
const minBytes = Number(process.env.KOLO_BENCH_MIN_BYTES ?? 4096);
const maxBytes = Number(process.env.KOLO_BENCH_MAX_BYTES ?? 64 * 1024 * 1024);
const json = process.env.KOLO_BENCH_JSON === '1';
const root = 0;

const pad = (v, w) => String(v).padStart(w);
if (rank === 0 && !json) {
  console.log(`# kolo broadcast benchmark: ${size} ranks, transport ${kolo.capabilities().transports[0]}, float32, root ${root}, GB = 1e9`);
  console.log(`#${pad('size', 11)}${pad('count', 13)}${pad('type', 9)}${pad('root', 7)}${pad('time', 11)}${pad('algbw', 8)}${pad('busbw', 8)}${pad('#wrong', 7)}`);
  console.log(`#${pad('(B)', 11)}${pad('(elements)', 13)}${pad('', 9)}${pad('', 7)}${pad('(us)', 11)}${pad('(GB/s)', 8)}${pad('(GB/s)', 8)}${pad('', 7)}`);
}
const warm = new Float32Array(1024);
await warmUp(() => kolo.broadcast(warm, { root, output: warm, name: 'bench.warmup' }));
let busSum = 0;
let rows = 0;
for (let bytes = minBytes; bytes <= maxBytes; bytes *= 4) {
  const count = bytes / 4;
  // In place (`output` is `data`), as MPI_Bcast and Gloo's broadcast in the baselines. Only the
  // root's values may arrive: the others start from zeros of their own.
  const data = new Float32Array(count).fill(rank === root ? 7 : 0);
  const options = { root, output: data, name: 'bench' };
  // As the allreduce bench: up to 2000 iterations, and the median of per-iteration times.
  const iters = Math.max(5, Math.min(2000, Math.floor((256 * 1024 * 1024) / bytes / 4)));
  const us = await medianMicros(iters, () => kolo.broadcast(data, options));
  if (rank !== root) data.fill(0);
  await kolo.broadcast(data, options);
  let wrong = 0;
  for (let i = 0; i < count; i += 1) if (data[i] !== 7) wrong += 1;
  const algbw = bytes / 1e9 / (us / 1e6);
  const busbw = algbw;
  busSum += busbw;
  rows += 1;
  if (rank === 0 && json) {
    console.log(`BENCH ${JSON.stringify({ bytes, count, us, algbw, busbw, wrong })}`);
  } else if (rank === 0) {
    console.log(` ${pad(bytes, 11)}${pad(count, 13)}${pad('float', 9)}${pad(root, 7)}${pad(us.toFixed(1), 11)}${pad(algbw.toFixed(2), 8)}${pad(busbw.toFixed(2), 8)}${pad(wrong, 7)}`);
  }
}
if (rank === 0 && !json) console.log(`# Avg bus bandwidth    : ${(busSum / rows).toFixed(3)}`);
await kolo.shutdown();
