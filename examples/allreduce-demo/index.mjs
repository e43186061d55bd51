// Run with: kolorun -np 2 node examples/allreduce-demo/index.mjs
import * as kolo from '@kolo/core';

await kolo.init();
const rank = kolo.rank();
const size = kolo.size();

// Rank r contributes [r+1, 2(r+1), 3(r+1), 4(r+1)]; the sum is known in closed form.
const mine = Float32Array.from([1, 2, 3, 4], (v) => v * (rank + 1));
const summed = await kolo.allreduce(mine, { op: 'sum', name: 'demo.vector' });
const averaged = await kolo.allreduce(mine, { op: 'average', name: 'demo.average' });
const hosts = await kolo.allgatherObject({ rank, pid: process.pid });

console.log(`rank ${rank}/${size} sent     [${Array.from(mine).join(', ')}]`);
console.log(`rank ${rank}/${size} sum      [${Array.from(summed).join(', ')}]`);
console.log(`rank ${rank}/${size} average  [${Array.from(averaged).join(', ')}]`);
console.log(`rank ${rank}/${size} peers    ${hosts.map((h) => `${h.rank}:${h.pid}`).join(' ')}`);
await kolo.shutdown();
