// One rank of `node scripts/soak.mjs` (run by it under kolorun with node --expose-gc):
// node --expose-gc scripts/soak-worker.mjs <minutes> <interval-seconds> <pause-ms>
// Loops over mixed collectives with a `pause-ms` sleep between iterations. Rank 0 decides, and
// broadcasts with each iteration, whether to take a sample and whether to go on, so that every rank
// samples at the same iteration and all run the same number. A sample is a full GC on every rank
// and one `SOAK mem {json}` line per rank: process.memoryUsage() and open descriptors (see
// descriptors() for how a descriptor open for a moment is told from a leaked one).
import { readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import * as kolo from '@kolo/core';

const [minutes, intervalSeconds, pauseMs] = process.argv.slice(2).map(Number);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A full collection, twice around a macrotask so V8's ArrayBuffer sweeping has finished. */
async function collect() {
  globalThis.gc();
  await sleep(20);
  globalThis.gc();
}

/**
 * Open descriptors, the smallest of three counts 5 ms apart (each includes the directory being
 * read). The engine thread opens /proc/<pid>/stat for a moment when it checks that a slow peer
 * is still alive; a count taken just then is one high although nothing leaked. A leaked
 * descriptor stays open through all three counts.
 */
async function descriptors() {
  let fewest = Infinity;
  for (let i = 0; i < 3; i += 1) {
    if (i > 0) await sleep(5);
    fewest = Math.min(fewest, readdirSync('/proc/self/fd').length);
  }
  return fewest;
}

/** One sample line: memory in bytes and open descriptors. */
async function report(rank, n, iterations, seconds) {
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  const fds = await descriptors();
  const load1 = loadavg()[0];
  console.log(`SOAK mem ${JSON.stringify({ rank, n, iterations, seconds, rss, heapUsed, heapTotal, external, arrayBuffers, fds, load1 })}`);
}

/**
 * Arrays reduced every iteration under the same names into the same outputs: the calls that
 * reuse their first call's validated request (src/collectives/recurring-plans.ts).
 */
const kept = {
  input: new Float32Array(4096),
  output: new Float32Array(4096),
  group: [new Float32Array(64), new Float32Array(1000)],
  groupOutputs: [new Float32Array(64), new Float32Array(1000)],
  large: new Float32Array(1 << 18),
};

/** Throws unless every element of every array is `expected`. */
function expectAll(arrays, expected, what) {
  for (const a of arrays) {
    if (a.some((v) => v !== expected)) throw new Error(`soak: ${what} held ${a.find((v) => v !== expected)} where every element should be ${expected}`);
  }
}

/** One iteration: every collective family, async and sync, tensors and objects. */
async function mixed(i, rank, size) {
  kept.input.fill(rank + i);
  for (const g of kept.group) g.fill(i);
  await Promise.all([
    kolo.allreduce(kept.input, { op: 'sum', name: 'soak.kept', output: kept.output }),
    kolo.groupedAllreduce([...kept.group], { op: 'sum', name: 'soak.kept.group', outputs: [...kept.groupOutputs] }),
    // A request recorded for an array that is dropped right after.
    kolo.allreduce(new Float32Array(64).fill(1), { op: 'sum', name: 'soak.fresh', output: new Float32Array(64) }),
    kolo.allreduce(new Float32Array(1 << 16).fill(rank), { op: 'sum', name: `soak.f32.${i % 2}` }),
    kolo.allreduce(new Float64Array(1000).fill(1), { op: 'average', name: `soak.f64.${i % 2}` }),
    kolo.allreduce(new Int32Array(17).fill(rank), { op: 'max', name: `soak.i32.${i % 2}` }),
    kolo.groupedAllreduce([new Float32Array(100), new Float32Array(3000)], { op: 'sum', name: `soak.grouped.${i % 2}` }),
    kolo.allgather(new Uint8Array(rank + 1).fill(rank), { name: `soak.gather.${i % 2}` }),
    kolo.broadcast(new Float32Array(4096).fill(rank), { root: i % size, name: `soak.bcast.${i % 2}` }),
    kolo.alltoall(new Int32Array(size * 8).fill(rank), { name: `soak.a2a.${i % 2}` }),
    kolo.reducescatter(new Float32Array(size * 64).fill(1), { op: 'sum', name: `soak.rs.${i % 2}` }),
  ]);
  expectAll([kept.output], (size * (size - 1)) / 2 + size * i, 'the kept allreduce');
  expectAll(kept.groupOutputs, size * i, 'the kept grouped allreduce');
  // The kept calls again, in a turn of their own that is the same every iteration: the request
  // queue hands it over again from the batch the engine kept (src/runtime/request-queue.ts).
  kept.input.fill(rank + 2 * i);
  await Promise.all([
    kolo.allreduce(kept.input, { op: 'sum', name: 'soak.kept', output: kept.output }),
    kolo.groupedAllreduce([...kept.group], { op: 'sum', name: 'soak.kept.group', outputs: [...kept.groupOutputs] }),
  ]);
  expectAll([kept.output], (size * (size - 1)) / 2 + size * 2 * i, 'the kept allreduce, repeated on its own');
  expectAll(kept.groupOutputs, size * i, 'the kept grouped allreduce, repeated on its own');
  kolo.allreduceSync(new Float32Array(256).fill(1), { op: 'sum', name: 'soak.sync' });
  // 1 MiB, in place: on shared memory with a CPU per rank, the one-copy allreduce (each rank
  // reads its share of the others' arrays from their memory).
  kept.large.fill(rank + i);
  await kolo.allreduce(kept.large, { op: 'sum', name: 'soak.large', output: kept.large });
  expectAll([kept.large], (size * (size - 1)) / 2 + size * i, 'the 1 MiB allreduce');
  // A named blocking call of the kept arrays, run from the batch the engine kept for it.
  kept.input.fill(rank + 3 * i);
  kolo.allreduceSync(kept.input, { op: 'sum', name: 'soak.kept.sync', output: kept.output });
  expectAll([kept.output], (size * (size - 1)) / 2 + size * 3 * i, 'the kept blocking allreduce');
  await kolo.allgatherObject({ rank, i }, { name: `soak.objects.${i % 2}` });
}

if (typeof globalThis.gc !== 'function') throw new Error('Expected node --expose-gc for the soak worker but global.gc is missing');
// Node creates process.stdout on first use; create it now so it is not counted as a new descriptor.
process.stdout.write('');
await kolo.init();
const rank = kolo.rank();
const size = kolo.size();
const start = Date.now();
const end = start + minutes * 60_000;
let nextSample = start + intervalSeconds * 1000;
let n = 0;
let i = 0;
for (let more = true; more; ) {
  await mixed(i, rank, size);
  i += 1;
  const now = Date.now();
  const plan = rank === 0 ? { sample: now >= nextSample || now >= end, more: now < end } : null;
  const { sample, more: goOn } = await kolo.broadcastObject(plan, { root: 0, name: `soak.plan.${i % 2}` });
  if (sample) {
    n += 1;
    // A late sample does not shift the schedule, and a long stall does not cause a burst.
    while (nextSample <= now) nextSample += intervalSeconds * 1000;
    await collect();
    await report(rank, n, i, (Date.now() - start) / 1000);
  }
  more = goOn;
  await sleep(pauseMs);
}
if (rank === 0) console.log(`SOAK done: ${i} iterations of mixed collectives in ${((Date.now() - start) / 1000).toFixed(0)} s`);
await kolo.shutdown();
