// Reports whether the job reads the peers' memory with one copy (KOLO_SHM_SINGLE_COPY as the
// test sets it), and the results of a 2 MiB allreduce and broadcast (within the one-copy bounds).
import * as kolo from '@kolo/core';

await kolo.init();
const rank = kolo.rank();
const n = 512 * 1024;
const summed = await kolo.allreduce(new Float32Array(n).fill(rank + 1), { op: 'sum', name: 'sc.allreduce' });
const sent = await kolo.broadcast(new Float32Array(n).fill(rank === 0 ? 7 : 0), { root: 0, name: 'sc.broadcast' });
const wrong = summed.filter((v) => v !== 3).length + sent.filter((v) => v !== 7).length;
console.log(`RESULT ${JSON.stringify({ rank, key: 'singleCopy', value: { singleCopy: kolo.singleCopy(), wrong } })}`);
await kolo.shutdown();
