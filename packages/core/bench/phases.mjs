// Worker of `npm run bench -- phases` (drivers/phases.mjs, which runs it on an addon built with
// the phase trace points): repeats one small collective back to back, awaited or blocking, so the
// trace shows where each call's time goes. KOLO_BENCH_PHASE_OP (allreduce, allgather, broadcast),
// KOLO_BENCH_PHASE_BYTES, KOLO_BENCH_SYNC=1 for the blocking call, KOLO_BENCH_ITERS, and
// KOLO_BENCH_GAP_US: a busy wait of that long before each call, as a training step's compute
// comes between its collectives (the trace's `returned>call` step then includes it).
import * as kolo from '@kolo/core';
import { medianMicros } from './warm-up.mjs';

await kolo.init();
const rank = kolo.rank();
const size = kolo.size();
const op = process.env.KOLO_BENCH_PHASE_OP ?? 'allreduce';
const bytes = Number(process.env.KOLO_BENCH_PHASE_BYTES ?? 4096);
const sync = process.env.KOLO_BENCH_SYNC === '1';
const iters = Number(process.env.KOLO_BENCH_ITERS ?? 3000);
const gapNs = BigInt(Math.round(Number(process.env.KOLO_BENCH_GAP_US ?? 0) * 1000));

// Each call as the bench of its collective makes it: allreduce into a separate output, allgather
// into a preallocated output (each rank sends bytes / size), broadcast in place from rank 0.
const elements = Math.max(1, Math.floor(bytes / 4));
const data = new Float32Array(op === 'allgather' ? Math.max(1, Math.floor(elements / size)) : elements).fill(rank + 1);
const output = new Float32Array(op === 'allgather' ? data.length * size : elements);
const calls = {
  allreduce: [
    () => kolo.allreduce(data, { op: 'sum', output, name: 'phases' }),
    () => kolo.allreduceSync(data, { op: 'sum', output, name: 'phases' }),
  ],
  allgather: [
    () => kolo.allgather(data, { output, name: 'phases' }),
    () => kolo.allgatherSync(data, { output, name: 'phases' }),
  ],
  broadcast: [
    () => kolo.broadcast(data, { root: 0, output: data, name: 'phases' }),
    () => kolo.broadcastSync(data, { root: 0, output: data, name: 'phases' }),
  ],
};
if (!Object.hasOwn(calls, op)) throw new Error(`KOLO_BENCH_PHASE_OP: expected allreduce, allgather or broadcast, got '${op}'`);
const [awaited, blocking] = calls[op];
const direct = sync ? blocking : awaited;
/** Busy-waits `gapNs` (the same on every rank, so they stay in step), then calls. */
function afterGap() {
  const until = process.hrtime.bigint() + gapNs;
  while (process.hrtime.bigint() < until);
  return direct();
}
const call = gapNs > 0n ? afterGap : direct;

// A second of the same call first, as the traced calls are read from the end of the run.
// The median call less the gap (the wait ends within a clock read of its deadline).
const gapUs = Number(gapNs) / 1000;
const us = (await medianMicros(iters, call, { sync, warmMs: 1000 })) - gapUs;
if (rank === 0) console.log(`BENCH ${JSON.stringify({ op, bytes, sync, np: size, iters, gapUs, us })}`);
await kolo.shutdown();
