// Small-message latency and fusion, medians in microseconds (rank 0 prints).
//   sync:   one 4 KiB allreduceSync            async: one 4 KiB allreduce awaited
//   fused:  200 allreduces of 4 KiB submitted together, awaited together
//   single: one 800 KiB allreduce awaited
//   syncLoop*/asyncLoop*: 4 KiB ops back to back: wall µs, CPU µs (every thread of rank 0) and
//   context switches per op
// Run through the root script: npm run bench -- latency [--np 2] [--transport shm,gloo]
import * as kolo from '@kolo/core';
import { warmUp } from './warm-up.mjs';

await kolo.init();
const rank = kolo.rank();
const iters = Number(process.env.KOLO_BENCH_ITERS ?? 400);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const now = () => Number(process.hrtime.bigint()) / 1000;

async function measure(fn, n) {
  for (let i = 0; i < Math.min(20, n); i += 1) await fn();
  const times = [];
  for (let i = 0; i < n; i += 1) {
    await kolo.barrier();  // start every sample together, so no rank waits on a straggler
    const t0 = now();
    await fn();
    times.push(now() - t0);
  }
  return median(times);
}

const small = new Float32Array(1024).fill(rank + 1);
const smallOut = new Float32Array(1024);
await warmUp(() => kolo.allreduceSync(small, { op: 'sum', output: smallOut, name: 'lat.sync' }));
await warmUp(() => kolo.allreduce(small, { op: 'sum', output: smallOut, name: 'lat.async' }));
const sync = await measure(() => kolo.allreduceSync(small, { op: 'sum', output: smallOut, name: 'lat.sync' }), iters);
const async_ = await measure(() => kolo.allreduce(small, { op: 'sum', output: smallOut, name: 'lat.async' }), iters);
const parts = Array.from({ length: 200 }, () => new Float32Array(1024).fill(rank + 1));
const partsOut = parts.map(() => new Float32Array(1024));
const fused = await measure(
  () => Promise.all(parts.map((p, i) => kolo.allreduce(p, { op: 'sum', output: partsOut[i], name: `lat.part${i}` }))),
  Math.max(10, iters / 10),
);
const big = new Float32Array(200 * 1024).fill(rank + 1);
const bigOut = new Float32Array(200 * 1024);
const single = await measure(() => kolo.allreduce(big, { op: 'sum', output: bigOut, name: 'lat.big' }), Math.max(10, iters / 10));
// Back to back (no barrier between ops): wall time, CPU time (all threads) and context
// switches (voluntary + involuntary) per op. CPU time and switches move far less with other
// load on the machine than wall time does.
async function perOp(fn, n) {
  for (let i = 0; i < Math.min(50, n); i += 1) await fn();
  await kolo.barrier();
  const r0 = process.resourceUsage();
  const t0 = now();
  for (let i = 0; i < n; i += 1) await fn();
  const wall = (now() - t0) / n;
  const r1 = process.resourceUsage();
  const cpu = (r1.userCPUTime + r1.systemCPUTime - r0.userCPUTime - r0.systemCPUTime) / n;
  const switches = (r1.voluntaryContextSwitches + r1.involuntaryContextSwitches -
    r0.voluntaryContextSwitches - r0.involuntaryContextSwitches) / n;
  return { wall, cpu, switches };
}
const syncLoop = await perOp(() => kolo.allreduceSync(small, { op: 'sum', output: smallOut, name: 'lat.sync' }), iters * 5);
const asyncLoop = await perOp(() => kolo.allreduce(small, { op: 'sum', output: smallOut, name: 'lat.async' }), iters * 5);
const want = (kolo.size() * (kolo.size() + 1)) / 2;
const wrong = [smallOut, bigOut, ...partsOut].reduce((n, a) => n + a.filter((v) => v !== want).length, 0);
const row = {
  sync, async: async_, asyncOverSync: async_ - sync, fused200x4k: fused, single800k: single, fusedOverSingle: fused / single,
  syncLoopWall: syncLoop.wall, syncLoopCpu: syncLoop.cpu, syncLoopSwitches: syncLoop.switches,
  asyncLoopWall: asyncLoop.wall, asyncLoopCpu: asyncLoop.cpu, asyncLoopSwitches: asyncLoop.switches, wrong,
};
if (rank === 0) {
  if (process.env.KOLO_BENCH_JSON === '1') {
    console.log(`BENCH ${JSON.stringify(row)}`);
  } else {
    for (const [k, v] of Object.entries(row)) console.log(`${k.padEnd(16)} ${typeof v === 'number' ? v.toFixed(1) : v}`);
  }
}
await kolo.shutdown();
