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
