// One collective per validation rule, with rank-dependent arguments; reports every rank's error
// and then proves the engine still works with a correct allreduce.
import * as kolo from '@kolo/core';

await kolo.init();
const rank = kolo.rank();
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank, key, value })}`);
const odd = rank % 2 === 1;

const rules = {
  dtype: () => kolo.allreduce(odd ? new Int32Array(4) : new Float32Array(4), { name: 'dtype' }),
  operation: () => (odd ? kolo.allgather(new Float32Array(4), { name: 'operation' }) : kolo.allreduce(new Float32Array(4), { name: 'operation' })),
  shape: () => kolo.allreduce(new Float32Array(odd ? 18 * 18 * 18 : 17 * 17 * 17), { shape: odd ? [18, 18, 18] : [17, 17, 17], name: 'shape' }),
  scale: () => kolo.allreduce(new Float32Array(2), { op: 'sum', postscaleFactor: odd ? 1 : 0.5, name: 'scale' }),
  reduceOp: () => kolo.allreduce(new Float32Array(2), { op: odd ? 'sum' : 'average', name: 'reduceOp' }),
  gatherRank: () => kolo.allgather(new Float32Array(6), { shape: odd ? [1, 2, 3] : [3, 2], name: 'gatherRank' }),
  gatherDim: () => kolo.allgather(new Float32Array(odd ? 4 : 3), { shape: odd ? [1, 4] : [1, 3], name: 'gatherDim' }),
  gatherScalar: () => kolo.allgather(new Float32Array(1), { shape: [], name: 'gatherScalar' }),
  root: () => kolo.broadcast(new Float32Array(2), { root: odd ? 1 : 0, name: 'root' }),
  // groupedAllreduce sends its arrays as one request; the coordinator compares them one by one.
  groupShape: () => kolo.groupedAllreduce([new Float32Array(4), new Float32Array(6)], { shapes: [[4], odd ? [2, 3] : [3, 2]], name: 'groupShape' }),
  groupCount: () => kolo.groupedAllreduce(odd ? [new Float32Array(1), new Float32Array(1), new Float32Array(1)] : [new Float32Array(1), new Float32Array(2)], { name: 'groupCount' }),
};

for (const [rule, run] of Object.entries(rules)) {
  try {
    await run();
    report(rule, { ok: true });
  } catch (err) {
    report(rule, { name: err.name, code: err.code, message: err.message });
  }
  const after = await kolo.allreduce(new Float32Array([rank + 1]), { op: 'sum', name: `after.${rule}` });
  report(`after.${rule}`, Array.from(after));
}

// A name still in flight on this rank fails at once, locally. The name is this rank's own, so no
// other rank ever submits it: it stays in flight (deterministically) until shutdown fails it.
const mine = `dup.${rank}`;
const first = kolo.allreduce(new Float32Array([1]), { op: 'sum', name: mine });
try {
  await kolo.allreduce(new Float32Array([1]), { op: 'sum', name: mine });
  report('duplicate', { ok: true });
} catch (err) {
  report('duplicate', { name: err.name, code: err.code, message: err.message });
}
const pending = first.then(
  () => 'completed',
  (err) => err.code,
);
await kolo.shutdown();
report('duplicate.first', await pending);
