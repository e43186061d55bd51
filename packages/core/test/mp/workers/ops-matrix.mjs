// Runs every op for every dtype once and prints each result as `RESULT <json>` for the test.
import * as kolo from '@kolo/core';
import { DTYPES, inputs, makeArray, toNumbers } from './fixtures.mjs';

await kolo.init();
const rank = kolo.rank();
const size = kolo.size();
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank, key, value })}`);
report('transport', kolo.transport());

for (const dtype of DTYPES) {
  for (const op of ['sum', 'min', 'max', 'product']) {
    const out = await kolo.allreduce(makeArray(dtype, inputs.reduce(rank)), { op, name: `${dtype}.${op}` });
    report(`allreduce.${op}.${dtype}`, toNumbers(dtype, out));
  }
  const avg = await kolo.allreduce(makeArray(dtype, inputs.average(rank)), { op: 'average', name: `${dtype}.avg` });
  report(`allreduce.average.${dtype}`, toNumbers(dtype, avg));

  const rows = inputs.gatherRows(rank);
  const gathered = await kolo.allgather(makeArray(dtype, inputs.gather(rank)), { shape: [rows, 2], name: `${dtype}.g` });
  report(`allgather.${dtype}`, { data: toNumbers(dtype, gathered.data), shape: gathered.shape });
  // Into a caller's output of the gathered size (sum over ranks of 2r elements), prefilled so a
  // skipped element shows.
  const into = makeArray(dtype, Array(size * (size - 1)).fill(7));
  const gatheredInto = await kolo.allgather(makeArray(dtype, inputs.gather(rank)), { shape: [rows, 2], output: into, name: `${dtype}.gi` });
  report(`allgather.into.${dtype}`, { data: toNumbers(dtype, into), shape: gatheredInto.shape, same: gatheredInto.data === into });

  const root = size - 1;
  const bcast = await kolo.broadcast(makeArray(dtype, [rank, rank, rank]), { root, name: `${dtype}.b` });
  report(`broadcast.${dtype}`, toNumbers(dtype, bcast));

  const a2a = await kolo.alltoall(makeArray(dtype, inputs.alltoall(rank, size)), {
    splits: inputs.alltoallSplits(rank, size),
    name: `${dtype}.a2a`,
  });
  report(`alltoall.${dtype}`, { data: toNumbers(dtype, a2a.data), receivedSplits: a2a.receivedSplits });

  const rs = await kolo.reducescatter(makeArray(dtype, inputs.scatter(rank, size)), {
    op: 'sum',
    shape: [inputs.scatterRows(size), 2],
    name: `${dtype}.rs`,
  });
  report(`reducescatter.${dtype}`, { data: toNumbers(dtype, rs.data), shape: rs.shape });
}

const scaled = await kolo.allreduce(new Float64Array([rank + 1]), { op: 'sum', prescaleFactor: 0.5, postscaleFactor: 3 });
report('allreduce.scaled.float64', Array.from(scaled));

const grouped = await kolo.groupedAllreduce(
  [new Float32Array([rank]), new Float32Array([1, 2]), new Int32Array([rank, 1])],
  { op: 'sum', name: 'grp' },
);
report('groupedAllreduce', grouped.map((a) => Array.from(a)));

// Zero-length tensors complete without reaching the transport (Gloo crashes on 0-byte gathers).
const emptySum = await kolo.allreduce(new Float32Array(0), { op: 'sum', name: 'empty.sum' });
const emptyGather = await kolo.allgather(new Int32Array(0), { shape: [0, 3], name: 'empty.gather' });
const emptyBcast = await kolo.broadcast(new Float64Array(0), { root: 0, name: 'empty.bcast' });
report('empty', { sum: emptySum.length, gather: emptyGather.shape, bcast: emptyBcast.length });

// The same small allgather six times (cached after the first: on shared memory its rows then
// travel with the votes), rank r sending r + 1 values that change every time; rank 0 gathers
// into its own output.
{
  const rounds = [];
  const own = new Float32Array((size * (size + 1)) / 2);
  for (let it = 0; it < 6; it += 1) {
    const mine = Float32Array.from({ length: rank + 1 }, (_, i) => it * 100 + rank * 10 + i);
    const got = await kolo.allgather(mine, { name: 'rep.gather', output: rank === 0 ? own : undefined });
    rounds.push(Array.from(got.data));
  }
  report('allgather.repeated', rounds);
}

// Large allgathers (rank r sends n + r floats: 80 KiB and up, where the engine's buffer becomes
// the result's memory, and 160 KiB and up, where on shared memory each rank reads the others'
// rows from their memory if the kernel allows it) and the same into an output; each element
// counted against its value; 600 KB parts take one copy too since session 20.
for (const [n, key] of [[20000, 'large'], [40000, 'larger'], [150000, 'huge']]) {
  const mine = Float32Array.from({ length: n + rank }, (_, i) => rank * 100000 + i);
  const total = n * size + (size * (size - 1)) / 2;
  const check = (data) => {
    let wrong = 0;
    let at = 0;
    for (let r = 0; r < size; r += 1) for (let i = 0; i < n + r; i += 1, at += 1) wrong += data[at] === r * 100000 + i ? 0 : 1;
    return { length: data.length, wrong };
  };
  const fresh = await kolo.allgather(mine, { name: `${key}.gather` });
  const out = new Float32Array(total);
  const into = kolo.allgatherSync(mine, { name: `${key}.gather.into`, output: out });
  report(`allgather.${key}`, { fresh: check(fresh.data), into: check(out), same: into.data === out });
}
// Large allreduces (1.2 MB: on shared memory, where the kernel lets ranks read each other's
// memory and each has a CPU, each rank reads its share of the others' inputs from their memory):
// into an output, in place, averaged, and a group of four 400 KB arrays (a fused allreduce of
// large tensors), each element counted against its exact value.
{
  const n = 300001;
  const value = (r, i) => (r + 1) * (i % 1000);
  const expected = (i) => ((size * (size + 1)) / 2) * (i % 1000);
  const wrong = (a, f) => a.reduce((w, v, i) => w + (v === f(i) ? 0 : 1), 0);
  const input = Float32Array.from({ length: n }, (_, i) => value(rank, i));
  const out = await kolo.allreduce(input, { op: 'sum', name: 'large.sum', output: new Float32Array(n) });
  const inputIntact = wrong(input, (i) => value(rank, i));
  await kolo.allreduce(input, { op: 'sum', name: 'large.sum.inplace', output: input });
  const ints = Int32Array.from({ length: n }, (_, i) => value(rank, i) * size);
  const avg = kolo.allreduceSync(ints, { op: 'average', name: 'large.avg', output: ints });
  const parts = [0, 1, 2, 3].map((k) => Float32Array.from({ length: 100000 }, (_, i) => value(rank, i + k)));
  const group = await kolo.groupedAllreduce(parts, { op: 'sum', name: 'large.group', outputs: parts });
  report('allreduce.large', {
    apart: wrong(out, expected),
    inputIntact,
    inPlace: wrong(input, expected),
    average: wrong(avg, expected),
    group: group.map((p, k) => wrong(p, (i) => expected(i + k))),
    length: out.length,
  });
}
// A 320 KB broadcast from the last rank, in place and into a new array, counted the same way.
{
  const root = size - 1;
  const n = 40000;
  const data = Float64Array.from({ length: n }, (_, i) => (rank === root ? i * 3 + root : -1));
  const fresh = await kolo.broadcast(data, { root, name: 'large.bcast' });
  await kolo.broadcast(data, { root, output: data, name: 'large.bcast.inplace' });
  const wrong = (a) => a.reduce((w, v, i) => w + (v === i * 3 + root ? 0 : 1), 0);
  report('broadcast.large', { fresh: wrong(fresh), inPlace: wrong(data), length: fresh.length });
}
// An output of the wrong length fails on the rank that passed it (rank 0), once the sizes are
// known; every other rank's call completes, and the next call works on every rank.
{
  const wrongLength = new Float32Array(rank === 0 ? size + 1 : size);
  const outcome = await kolo.allgather(new Float32Array([rank]), { name: 'bad.output', output: wrongLength }).then(
    (r) => ({ data: Array.from(r.data) }),
    (err) => ({ name: err.name, code: err.code, message: err.message }),
  );
  const after = await kolo.allgather(new Float32Array([rank]), { name: 'after.bad.output' });
  report('allgather.badOutput', { outcome, after: Array.from(after.data) });
}

await kolo.barrier();
report('barrier', true);

const steps = [];
for (let s = 0; s < inputs.joinSteps(rank); s += 1) {
  const out = await kolo.allreduce(new Float32Array([1]), { op: 'sum', name: `step.${s}` });
  steps.push(out[0]);
}
const last = await kolo.join();
report('join', { steps, last });

await kolo.shutdown();
await kolo.shutdown(); // idempotent
try {
  await kolo.allreduce(new Float32Array(1));
  report('afterShutdown', 'resolved');
} catch (err) {
  report('afterShutdown', { name: err.name, code: err.code });
}
