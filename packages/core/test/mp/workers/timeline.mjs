// A few named gradient allreduces (fused in one cycle), then a broadcast, with KOLO_TIMELINE set.
import * as kolo from '@kolo/core';

await kolo.init();
const rank = kolo.rank();
await Promise.all(['grad.w1', 'grad.b1', 'grad.w2'].map((name) => kolo.allreduce(new Float32Array(256).fill(rank), { name })));
await kolo.broadcast(new Int32Array([rank]), { root: 0, name: 'step' });
await kolo.shutdown();
