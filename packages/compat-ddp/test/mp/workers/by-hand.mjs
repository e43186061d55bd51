// One rank of a job started by hand (no launcher) or by mpirun: node by-hand.mjs <initMethod|-> [rank worldSize]
// (backend: TEST_BACKEND, default gloo).
// Joins, sums its rank + 1 with the others, sends a ring message, and prints `RESULT <json>` lines.
import * as dist from '@kolo/compat-ddp';

const [initMethod, rankArg, sizeArg] = process.argv.slice(2);
await dist.initProcessGroup({
  backend: process.env.TEST_BACKEND ?? 'gloo',
  timeoutMs: 60_000,
  ...(initMethod !== '-' && { initMethod }),
  ...(rankArg !== undefined && { rank: Number(rankArg), worldSize: Number(sizeArg) }),
});
const rank = dist.getRank();
const size = dist.getWorldSize();
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank, key, value })}`);
const t = new Int32Array([rank + 1]);
await dist.allReduce(t);
const into = new Int32Array(1);
const sending = dist.isend(Int32Array.of(rank * 7), { dst: (rank + 1) % size });
await dist.recv(into, { src: (rank + size - 1) % size });
await sending.wait();
report('job', { size, sum: t[0], received: into[0], backend: dist.getBackend() });
await dist.destroyProcessGroup();
