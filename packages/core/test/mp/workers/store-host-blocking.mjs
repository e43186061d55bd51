// Started torchrun-style (rank 0 hosts the store): every rank asks for a process set without
// awaiting it and then blocks in allreduceSync, so the set is connected (through the store) by a
// cycle that runs while rank 0's JS thread is blocked. Prints each rank's results.
import * as kolo from '@kolo/core';

await kolo.init();
const rank = kolo.rank();
const pending = kolo.addProcessSet([0, 2]);
const x = new Float32Array([rank + 1]);
kolo.allreduceSync(x, { op: 'sum', output: x, name: 'blocking' });
const set = await pending;
let inSet = 'none';
if (rank !== 1) {
  const y = await kolo.allreduce(new Float32Array([10 * (rank + 1)]), { op: 'sum', processSet: set, name: 'in-set' });
  inSet = String(y[0]);
}
console.log(`RESULT rank ${rank} all ${x[0]} set ${inSet}`);
// Shutdown ends the job on every rank: rank 1 (not in the set) waits here for the others.
await kolo.barrier();
await kolo.shutdown();
