// Exercises push, pull, pushpull, init, broadcast and rowSparsePull of dist stores and the
// horovod store; reports every result for kvstore-ops.test.ts to check exactly.
import * as kv from '@kolo/compat-kvstore';
import * as f from './fixtures.mjs';

const store = await kv.create(process.argv[2] ?? 'dist_sync_kolo');
const rank = store.rank;
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank, key, value })}`);
const list = (a) => Array.from(a, Number);
report('topology', { type: store.type, rank: store.rank, numWorkers: store.numWorkers, localRank: store.localRank, local_rank: store.local_rank, num_workers: store.num_workers });

// init: rank 0's value wins on every worker.
await store.init(0, Float32Array.from(f.initValue(rank)));
const out0 = new Float32Array(4);
await store.pull(0, { out: out0 });
report('init', list(out0));

// push (sum over workers) then pull, and the same with priorities, which change nothing.
await store.push(0, Float32Array.from(f.pushValue(rank)));
await store.pull(0, { out: out0 });
report('push.sum', list(out0));
await store.push(0, Float32Array.from(f.pushValue(rank)), { priority: -5 });
const outs = [new Float32Array(4), new Float32Array(4)];
await store.pull(0, { out: [outs[0]], priority: 9 });
await store.pull(0, { out: outs[1] });
report('push.priority', [list(outs[0]), list(outs[1])]);

// Several values for one key on one worker: summed locally, then over workers.
await store.init(1, new Float32Array(3));
await store.push(1, f.deviceValues(rank).map((v) => Float32Array.from(v)));
const out1 = [new Float32Array(3), new Float32Array(3)];
await store.pull(1, { out: out1 });
report('push.multi', out1.map(list));

// A list of keys in one call; pull into a list of outputs.
await store.init([2, 3], [new Float32Array(2), new Float32Array(2)]);
await store.push([2, 3], f.listValues(rank).map((v) => Float32Array.from(v)));
const out23 = [new Float32Array(2), new Float32Array(2)];
await store.pull([2, 3], { out: out23 });
report('push.list', out23.map(list));

// Other dtypes: int32, float64, float16 (Uint16Array bits).
await store.init([4, 5, 6], [new Int32Array(3), new Float64Array(2), new Uint16Array(3)]);
await store.push([4, 5, 6], [Int32Array.from(f.intValue(rank)), Float64Array.from(f.f64Value(rank)), Uint16Array.from(f.f16Ints(rank), kv.toFloat16Bits)]);
const out456 = [new Int32Array(3), new Float64Array(2), new Uint16Array(3)];
await store.pull([4, 5, 6], { out: out456 });
report('push.dtypes', [list(out456[0]), list(out456[1]), Array.from(out456[2], kv.fromFloat16Bits)]);

// pushpull into the values, and into out; not awaited push followed by pull keeps order.
const inPlace = Float32Array.from(f.pushValue(rank));
await store.pushpull(0, inPlace);
const pushpullOut = new Float32Array(4);
await store.pushpull(0, Float32Array.from(f.pushValue(rank)), { out: pushpullOut });
void store.push(0, Float32Array.from(f.pushValue(rank)).map((v) => 2 * v));
const ordered = new Float32Array(4);
await store.pull(0, { out: ordered });
report('pushpull', [list(inPlace), list(pushpullOut), list(ordered)]);

// broadcast: rank 0's value into out; rowSparsePull of rows [3, 1] of a 4 x 2 key.
const bcast = new Float32Array(4);
await store.broadcast(7, Float32Array.from(f.initValue(rank)), { out: bcast });
await store.init(8, Float32Array.from(f.sparseValue(rank)), { shape: f.sparseShape });
const rows = new Float32Array(8);
await store.rowSparsePull(8, { out: rows, rowIds: f.sparseRows });
report('broadcast.rowSparse', [list(bcast), list(rows)]);

// AIACC's string-keyed buffers: paramOnly keys with op max/min, untouched by the optimizer.
const buffers = await kv.create('dist_sync_perseus');
buffers.setOptimizer(new kv.SGD({ learningRate: 1 }));
await buffers.init(['count_max', 'count_min'], [new Int32Array(1), new Int32Array(1)], { param_only: 1 });
await buffers.push('count_max', Int32Array.of(f.counts[rank]), { op: 'max' });
await buffers.push('count_min', Int32Array.of(f.counts[rank]), { op: 'min' });
const extremes = [new Int32Array(1), new Int32Array(1)];
await buffers.pull(['count_max', 'count_min'], { out: extremes });
await buffers.init('w', Float32Array.of(1, 2));
await buffers.pushpull('w', Float32Array.of(rank, 1));
const w = new Float32Array(2);
await buffers.pull('w', { out: w });
report('strings', [list(extremes[0]), list(extremes[1]), list(w)]);

// 2-bit compression (error feedback over two pushes) and fp16 communication.
const twoBit = await kv.create('dist_sync_kolo');
twoBit.setGradientCompression({ type: '2bit', threshold: 0.5 });
await twoBit.init(0, new Float32Array(4));
const steps = [new Float32Array(4), new Float32Array(4)];
for (const out of steps) await twoBit.pushpull(0, Float32Array.from(f.twoBitGrad(rank)), { out });
const fp16 = await kv.create('dist_sync_kolo');
fp16.setGradientCompression({ type: 'fp16' });
await fp16.init(0, new Float32Array(2));
const half = new Float32Array(2);
await fp16.pushpull(0, Float32Array.from(f.fp16Grad(rank)), { out: half });
report('compression', [...steps.map(list), list(half)]);

// MXNet's Horovod store: pushpull sums without init; broadcast may repeat.
const hvd = await kv.create('horovod');
const summed = Float32Array.from(f.pushValue(rank));
await hvd.pushpull('g', summed);
const hb = new Float32Array(4);
await hvd.broadcast('p', Float32Array.from(f.initValue(rank)), { out: hb });
await hvd.broadcast('p', Float32Array.from(f.initValue(rank)), { out: hb });
report('horovod', [list(summed), list(hb), hvd.isCapable('optimizer')]);
const refused = (call) => {
  try {
    call();
    return null;
  } catch (e) {
    return { name: e.name, code: e.code, message: e.message };
  }
};
report('horovod.refused', [refused(() => hvd.push('g', summed)), refused(() => hvd.set_gradient_compression({ type: '2bit' }))]);

await store.barrier();
report('done', true);
await kv.shutdown();
