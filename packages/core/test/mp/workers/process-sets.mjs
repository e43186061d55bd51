// Collectives over process sets: the ends {0, size-1} and the first two ranks.
import * as kolo from '@kolo/core';

await kolo.init();
const rank = kolo.rank();
const size = kolo.size();
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank, key, value })}`);

const ends = await kolo.addProcessSet([size - 1, 0]);
const evens = await kolo.addProcessSet([1, 0]);
report('ids', [ends.id, evens.id, ends.ranks, evens.ranks]);

if (ends.includes(rank)) {
  const avg = await kolo.allreduce(new Float64Array([rank]), { processSet: ends, name: 'ends.avg' });
  const fromLast = await kolo.broadcast(new Int32Array([rank * 7]), { root: size - 1, processSet: ends, name: 'ends.bcast' });
  const gathered = await kolo.allgather(new Int8Array(ends.rank() + 1).fill(rank), { processSet: ends, name: 'ends.gather' });
  const a2a = await kolo.alltoall(new Int32Array([rank, rank + 100]), { processSet: ends, name: 'ends.a2a' });
  const rs = await kolo.reducescatter(new Float32Array([1, 2, 3, 4]), { op: 'sum', processSet: ends, name: 'ends.rs' });
  await kolo.barrier({ processSet: ends, name: 'ends.barrier' });
  report('ends', {
    avg: avg[0],
    bcast: fromLast[0],
    gathered: Array.from(gathered.data),
    a2a: Array.from(a2a.data),
    rs: Array.from(rs.data),
    setRank: ends.rank(),
  });
} else {
  try {
    await kolo.allreduce(new Float64Array([rank]), { processSet: ends, name: 'ends.avg' });
    report('outsider', null);
  } catch (err) {
    report('outsider', { code: err.code, message: err.message });
  }
}
if (evens.includes(rank)) {
  const sum = await kolo.allreduce(new Int32Array([1]), { op: 'sum', processSet: evens, name: 'evens.count' });
  report('evens', sum[0]);
}
const everyone = await kolo.allreduce(new Int32Array([1]), { op: 'sum', name: 'all.count' });
report('everyone', everyone[0]);
await kolo.removeProcessSet(ends);
try {
  await kolo.allreduce(new Float64Array([0]), { processSet: ends, name: 'gone' });
  report('removed', null);
} catch (err) {
  report('removed', { code: err.code });
}
await kolo.shutdown();
