// A port of Horovod's test/parallel/test_torch.py (reference section 4) onto @kolo/compat-horovod.
// Every rank runs the same sequence and reports what it got as `RESULT {rank, key, value}`
// lines; the vitest file derives the exact expected values from fixtures.mjs.
import * as hvd from '@kolo/compat-horovod';
import { DIMS, DTYPES, inputs, makeArray, numel, toNumbers } from './fixtures.mjs';

await hvd.init();
const rank = hvd.rank();
const size = hvd.size();
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank, key, value })}`);
const failure = (err) => ({ name: err.name, code: err.code, message: err.message });
async function outcome(run) {
  try {
    await run();
    return { ok: true };
  } catch (err) {
    return failure(err);
  }
}

// test_horovod_rank / _size / _is_initialized: the launcher's HOROVOD_* agree with the API.
report('identity', {
  rank,
  size,
  localRank: hvd.local_rank(),
  localSize: hvd.localSize(),
  crossRank: hvd.cross_rank(),
  crossSize: hvd.crossSize(),
  homogeneous: hvd.is_homogeneous(),
  initialized: hvd.is_initialized(),
  env: [process.env.HOROVOD_RANK, process.env.HOROVOD_SIZE, process.env.HOROVOD_LOCAL_RANK],
  gloo: [hvd.gloo_built(), hvd.gloo_enabled(), hvd.mpi_enabled()],
});

// test_horovod_allreduce (average=False), _average (average=True), _inplace, _prescale, _postscale.
for (const dtype of DTYPES) {
  for (const [d, shape] of DIMS.entries()) {
    const x = makeArray(dtype, inputs.identical(d));
    const copy = x.slice();
    const sum = await hvd.allreduce(x, { average: false, shape });
    const avg = await hvd.allreduce(x, { average: true, shape });
    const unchanged = x.every((v, i) => v === copy[i]);
    report(`allreduce.${dtype}.${d}`, { sum: toNumbers(sum), avg: toNumbers(avg), unchanged, fresh: sum !== x });
  }
  const mine = makeArray(dtype, inputs.perRank(rank, 1, 20));
  const small = makeArray(dtype, inputs.perRank(rank, 2, 20, -3, 4));
  const shape = [4, 5];
  report(`allreduce.ops.${dtype}`, {
    min: toNumbers(await hvd.allreduce(mine, { op: hvd.Min, shape })),
    max: toNumbers(await hvd.allreduce(mine, { op: hvd.Max, shape })),
    product: toNumbers(await hvd.allreduce(small, { op: hvd.Product, shape })),
    prescale: toNumbers(await hvd.allreduce(mine, { op: hvd.Sum, prescale_factor: inputs.factor })),
    postscale: toNumbers(await hvd.allreduce(mine, { op: hvd.Sum, postscaleFactor: inputs.factor })),
  });
  const target = makeArray(dtype, inputs.perRank(rank, 3, 20));
  const same = await hvd.allreduce_(target, { op: hvd.Sum, name: `inplace.${dtype}` });
  report(`allreduce.inplace.${dtype}`, { values: toNumbers(target), same: same === target });
}

// test_horovod_allreduce_async_fused: many handles in flight at once, then synchronized.
{
  const handles = DTYPES.flatMap((dtype) =>
    DIMS.map((shape, d) => hvd.allreduce_async(makeArray(dtype, inputs.identical(d)), { op: hvd.Sum, shape })),
  );
  const polled = handles.map((h) => typeof hvd.poll(h));
  const values = [];
  for (const h of handles) values.push(toNumbers(await hvd.synchronize(h)));
  const again = await outcome(() => hvd.synchronize(handles[0]));
  report('allreduce.async', { polled, values, again });
}

// float16 data and test_compression_fp16 (compress, reduce in float16, decompress).
{
  const halves = await hvd.allreduce(Uint16Array.from(inputs.perRank(rank, 4, 8), hvd.toFloat16Bits), { op: hvd.Sum });
  const x = Float32Array.from(inputs.perRank(rank, 5, 8), (v) => v / 10);
  const compressed = await hvd.allreduce(x, { op: hvd.Sum, compression: hvd.Compression.fp16 });
  const ints = await hvd.allreduce(new Int32Array([rank]), { op: hvd.Sum, compression: hvd.Compression.fp16 });
  report('float16', {
    halves: Array.from(halves, hvd.fromFloat16Bits),
    compressed: Array.from(compressed),
    compressedType: compressed.constructor.name,
    ints: toNumbers(ints),
  });
}

// test_horovod_grouped_allreduce (+_average, _inplace).
{
  const group = () => [0, 1, 2].map((k) => makeArray('float32', inputs.perRank(rank, 10 + k, 3 + k)));
  const sums = await hvd.grouped_allreduce(group(), { op: hvd.Sum, name: 'grouped.sum' });
  const avgs = await hvd.groupedAllreduce(group(), { shapes: [[3], [2, 2], [5]] });
  const tensors = group();
  const same = await hvd.grouped_allreduce_(tensors, { op: hvd.Max });
  report('grouped', {
    sum: sums.map(toNumbers),
    average: avgs.map(toNumbers),
    inplace: tensors.map(toNumbers),
    same: same.every((t, i) => t === tensors[i]),
  });
}

// test_horovod_allgather (rank-filled) and _variable_size (Horovod's row counts).
for (const dtype of DTYPES) {
  const filled = await hvd.allgather(makeArray(dtype, Array(6).fill(rank)), { shape: [3, 2] });
  const rows = inputs.gatherRows(rank);
  const variable = await hvd.allgather(makeArray(dtype, inputs.perRank(rank, 20, rows * 3)), { shape: [rows, 3] });
  report(`allgather.${dtype}`, { filled: toNumbers(filled), variable: toNumbers(variable) });
}

// test_horovod_broadcast for every root, and _inplace.
for (const dtype of DTYPES) {
  const got = [];
  for (let root = 0; root < size; root++) {
    const x = makeArray(dtype, inputs.perRank(rank, 30, 6));
    const before = toNumbers(x);
    const out = await hvd.broadcast(x, root, { name: `broadcast.${dtype}.${root}`, shape: [2, 3] });
    got.push({ out: toNumbers(out), unchanged: toNumbers(x).every((v, i) => v === before[i]) });
  }
  const target = makeArray(dtype, inputs.perRank(rank, 31, 4));
  const same = await hvd.broadcast_(target, size - 1);
  report(`broadcast.${dtype}`, { roots: got, inplace: toNumbers(target), same: same === target });
}

// test_horovod_alltoall (explicit splits), _equal_split, rows past the splits, argument errors.
for (const dtype of DTYPES) {
  const vals = Array.from({ length: size }, (_, i) => Array((rank + 1) * 2).fill(i)).flat();
  const shape = [size * (rank + 1), 2];
  const [data, received] = await hvd.alltoall(makeArray(dtype, vals), Array(size).fill(rank + 1), { shape });
  const equal = await hvd.alltoall(makeArray(dtype, vals), undefined, { shape });
  // Row k goes to rank k; the last row is past the splits' sum and stays home.
  const extra = [...Array.from({ length: size }, (_, k) => [k * 10 + rank, k * 10 + rank]).flat(), 99, 99];
  const [partial, partialSplits] = await hvd.alltoall(makeArray(dtype, extra), new Int32Array(size).fill(1), {
    shape: [size + 1, 2],
  });
  report(`alltoall.${dtype}`, {
    data: toNumbers(data),
    received: Array.from(received),
    receivedType: received.constructor.name,
    equal: toNumbers(equal),
    partial: toNumbers(partial),
    partialSplits: Array.from(partialSplits),
  });
}
report('alltoall.errors', {
  count: await outcome(() => hvd.alltoall(new Float32Array(size), Array(size + 1).fill(0))),
  sum: await outcome(() => hvd.alltoall(new Float32Array(size), Array(size).fill(2))),
  type: await outcome(() => hvd.alltoall(new Float32Array(size), new Float32Array(size).fill(1))),
  oneD: await outcome(() => hvd.alltoall(new Float32Array(size), [[1], [1]])),
  even: await outcome(() => hvd.alltoall(new Float32Array(size + 1))),
});

// test_horovod_reducescatter (+_average, uneven rows, _prescale, _postscale) and its errors.
for (const dtype of DTYPES) {
  const rows = inputs.scatterRows(size);
  const x = makeArray(dtype, inputs.perRank(rank, 40, rows * 3));
  const shape = [rows, 3];
  report(`reducescatter.${dtype}`, {
    sum: toNumbers(await hvd.reducescatter(x, { op: hvd.Sum, shape })),
    average: toNumbers(await hvd.reducescatter(x, { shape })),
    prescale: toNumbers(await hvd.reducescatter(x, { op: hvd.Sum, shape, prescale_factor: inputs.factor })),
    postscale: toNumbers(await hvd.reducescatter(x, { op: hvd.Sum, shape, postscale_factor: inputs.factor })),
  });
}
report('unsupported', {
  adasum: await outcome(() => hvd.allreduce(new Float32Array(2), { op: hvd.Adasum })),
  scatterMin: await outcome(() => hvd.reducescatter(new Float32Array(size), { op: hvd.Min })),
  scatterAdasum: await outcome(() => hvd.reducescatter(new Float32Array(size), { op: hvd.Adasum })),
  scatterScalar: await outcome(() => hvd.reducescatter(new Float32Array(1), { shape: [] })),
  both: await outcome(() => hvd.allreduce(new Float32Array(2), { op: hvd.Sum, average: true })),
  processSet: await outcome(() => hvd.allreduce(new Float32Array(2), { process_set: 'evens' })),
});

// Every mismatch case: rank 0 differs from the rest; each is followed by a working allreduce.
const first = rank === 0;
const mismatches = {
  allreduceShape: () => {
    const dims = [17 + Math.min(rank, 1), 17 + Math.min(rank, 1), 17 + Math.min(rank, 1)];
    return hvd.allreduce(new Float32Array(numel(dims)), { shape: dims, name: 'allreduceShape' });
  },
  allreduceRank: () => hvd.allreduce(new Float32Array(24), { shape: first ? [4, 6] : [24], name: 'allreduceRank' }),
  allreduceType: () => hvd.allreduce(first ? new Int32Array(4) : new Float32Array(4), { name: 'allreduceType' }),
  operation: () =>
    first ? hvd.allreduce(new Float32Array(4), { name: 'operation' }) : hvd.allgather(new Float32Array(4), { name: 'operation' }),
  reduceOp: () => hvd.allreduce(new Float32Array(2), { op: first ? hvd.Average : hvd.Sum, name: 'reduceOp' }),
  scale: () => hvd.allreduce(new Float32Array(2), { op: hvd.Sum, postscale_factor: first ? 0.5 : 1, name: 'scale' }),
  allgatherDim: () => hvd.allgather(new Float32Array(first ? 6 : 8), { shape: first ? [2, 3] : [2, 4], name: 'allgatherDim' }),
  allgatherRank: () => hvd.allgather(new Float32Array(6), { shape: first ? [2, 3] : [1, 2, 3], name: 'allgatherRank' }),
  allgatherType: () => hvd.allgather(first ? new Int32Array(3) : new Float32Array(3), { name: 'allgatherType' }),
  broadcastShape: () => hvd.broadcast(new Float32Array(first ? 4 : 5), 0, { name: 'broadcastShape' }),
  broadcastType: () => hvd.broadcast(first ? new Int32Array(4) : new Float32Array(4), 0, { name: 'broadcastType' }),
  broadcastRoot: () => hvd.broadcast(new Float32Array(4), first ? 0 : 1, { name: 'broadcastRoot' }),
  alltoallType: () => hvd.alltoall(first ? new Int32Array(size) : new Float32Array(size), undefined, { name: 'alltoallType' }),
  alltoallDim: () =>
    hvd.alltoall(new Float32Array(size * (first ? 2 : 3)), undefined, { shape: [size, first ? 2 : 3], name: 'alltoallDim' }),
  reducescatterShape: () =>
    hvd.reducescatter(new Float32Array(size * (first ? 2 : 3)), { shape: [size, first ? 2 : 3], name: 'reducescatterShape' }),
  reducescatterType: () => hvd.reducescatter(first ? new Int32Array(size) : new Float32Array(size), { name: 'reducescatterType' }),
};
for (const [rule, run] of Object.entries(mismatches)) {
  report(`mismatch.${rule}`, await outcome(run));
  const after = await hvd.allreduce(new Float32Array([rank + 1]), { op: hvd.Sum, name: `after.${rule}` });
  report(`mismatch.${rule}.after`, toNumbers(after));
}

// test_horovod_{allreduce,allgather,broadcast,reducescatter}_duplicate_name_error. Each rank
// repeats its own name while no other rank has submitted it (the others do so only after the
// barrier), so the first request is certainly still in flight when the second arrives.
{
  const starts = {
    allreduce: (x, name) => hvd.allreduce_async(x, { op: hvd.Sum, name }),
    allgather: (x, name) => hvd.allgather_async(x, { name }),
    broadcast: (x, name) => hvd.broadcast_async(x, 0, { name }),
    reducescatter: (x, name) => hvd.reducescatter_async(x, { op: hvd.Sum, name }),
  };
  for (const [op, start] of Object.entries(starts)) {
    const name = (owner) => `duplicate.${op}.${owner}`;
    const ones = new Float32Array(size).fill(1);
    const mine = start(ones, name(rank));
    const second = await outcome(() => hvd.synchronize(start(ones, name(rank))));
    await hvd.barrier({ name: `duplicate.${op}.barrier` });
    const others = Array.from({ length: size }, (_, s) => s).filter((s) => s !== rank).map((s) => start(ones, name(s)));
    const first = toNumbers(await hvd.synchronize(mine));
    for (const h of others) await hvd.synchronize(h);
    report(`duplicate.${op}`, { second, first });
  }
}

// test_horovod_join_allreduce: rank `joiner` joins at once; the others' Average sees zeros for it.
for (const joiner of [0, 1]) {
  const x = makeArray('int32', inputs.identical(0));
  const y = makeArray('float32', inputs.identical(0));
  if (rank === joiner) {
    report(`join.${joiner}`, { last: await hvd.join() });
  } else {
    const ints = await hvd.allreduce(x, { name: 'test_allreduce' });
    const floats = await hvd.allreduce(y, { name: 'test_allreduce.float32' });
    report(`join.${joiner}`, { ints: toNumbers(ints), floats: toNumbers(floats), last: await hvd.join() });
  }
}
// test_horovod_join_allgather / _broadcast: collectives other than allreduce fail while a rank is joined.
if (rank === 0) {
  report('join.others', { last: await hvd.join() });
} else {
  const gather = await outcome(() => hvd.allgather(new Float32Array(2), { name: 'join.allgather' }));
  const bcast = await outcome(() => hvd.broadcast(new Float32Array(2), 1, { name: 'join.broadcast' }));
  report('join.others', { gather, bcast, last: await hvd.join() });
}

// test_broadcast_object and test_allgather_object.
{
  const expected = { hello: 123, 0: [1, 2] };
  const fromZero = await hvd.broadcast_object(rank === 0 ? expected : {});
  const fromLast = await hvd.broadcastObject(rank === size - 1 ? ['last', size] : null, size - 1, { name: 'from.last' });
  const d = { metric_val_1: rank, ...(rank === 1 && { metric_val_2: 42 }) };
  report('objects', { fromZero, fromLast, gathered: await hvd.allgather_object(d) });
}

// test_horovod_{allreduce,allgather,broadcast,alltoall,reducescatter}_process_sets, over the even
// ranks; roots are global ranks. (The odd set is registered and removed but not used: the engine
// does not yet complete collectives on a set without rank 0.)
{
  const ranks = Array.from({ length: size }, (_, r) => r);
  const evens = await hvd.add_process_set(ranks.filter((r) => r % 2 === 0));
  const odds = await hvd.addProcessSet(ranks.filter((r) => r % 2 === 1));
  const x = makeArray('int32', inputs.perRank(rank, 50, 6));
  const opts = { process_set: evens };
  const n = evens.size();
  const common = { ids: [evens.id, odds.id], ranks: [evens.ranks, odds.ranks], me: [evens.rank(), odds.rank()] };
  if (evens.includes(rank)) {
    // Named: unnamed requests are numbered per rank, and only the members issue these.
    await hvd.barrier({ ...opts, name: 'ps.barrier' });
    const mixed = makeArray('int32', Array.from({ length: n }, (_, k) => k * 100 + rank));
    report('processSets', {
      ...common,
      sum: toNumbers(await hvd.allreduce(x, { ...opts, op: hvd.Sum, name: 'ps.sum' })),
      average: toNumbers(await hvd.allreduce(x, { ...opts, name: 'ps.average' })),
      gather: toNumbers(await hvd.allgather(x, { ...opts, name: 'ps.gather' })),
      bcast: toNumbers(await hvd.broadcast(x, evens.ranks[n - 1], { ...opts, name: 'ps.bcast' })),
      alltoall: toNumbers(await hvd.alltoall(mixed, undefined, { ...opts, name: 'ps.alltoall' })),
      scatter: toNumbers(await hvd.reducescatter(makeArray('int32', inputs.perRank(rank, 51, n * 2)), { ...opts, op: hvd.Sum, name: 'ps.scatter' })),
    });
  } else {
    report('processSets', { ...common, outsider: await outcome(() => hvd.allreduce(x, { ...opts, name: 'outsider' })) });
  }
  const removed = [await hvd.remove_process_set(odds), await hvd.removeProcessSet(evens)];
  const after = await outcome(() => hvd.allreduce(x, { process_set: evens, name: 'removed' }));
  report('processSets.removed', { removed, after });
}

// test_process_set_barrier_op / test_barrier_with_multiple_collectives.
{
  const handles = [0, 1, 2].map((k) => hvd.allreduce_async(new Float32Array([k]), { op: hvd.Sum, name: `barrier.${k}` }));
  await hvd.barrier();
  const sums = [];
  for (const h of handles) sums.push(toNumbers(await hvd.synchronize(h)));
  report('barrier', sums);
}

// test_timeline_api: rank 0 writes each file; the vitest file reads them after the job. Rank 0
// opens a timeline at its next cycle; one already under way may gather another rank's first
// request for the tensor, whose negotiation would then have begun before the file did (CI saw
// it once). The barrier after each start is negotiated in a cycle after it, so every rank's
// request for the tensor reaches the coordinator once the file is open.
{
  const dir = process.argv[2];
  hvd.start_timeline(`${dir}/timeline.marked.json`, { mark_cycles: true });
  await hvd.barrier();
  await hvd.allreduce(new Float32Array([1, 2]), { name: 'test_allreduce' });
  hvd.stop_timeline();
  hvd.startTimeline(`${dir}/timeline.restarted.json`);
  await hvd.barrier();
  await hvd.allreduce(new Float32Array([1, 2]), { name: 'test_allreduce.restarted' });
  hvd.stopTimeline();
}

// Ops after shutdown (Horovod's message), then test_horovod_reinit.
await hvd.shutdown();
report('afterShutdown', {
  initialized: hvd.isInitialized(),
  allreduce: await outcome(() => hvd.allreduce(new Float32Array(1))),
  rank: await outcome(() => hvd.rank()),
  broadcastObject: await outcome(() => hvd.broadcast_object({})),
});
await hvd.init();
const again = await hvd.allreduce(new Float32Array([rank]), { op: hvd.Sum });
report('reinit', { rank: hvd.rank(), size: hvd.size(), sum: toNumbers(again) });
await hvd.shutdown();
