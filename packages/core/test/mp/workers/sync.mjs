// allreduceSync from inside a synchronous function that never yields to the event loop.
import * as kolo from '@kolo/core';

await kolo.init();
const rank = kolo.rank();

function trainStepsWithoutYielding() {
  const seen = [];
  for (let step = 0; step < 10; step += 1) {
    const out = kolo.allreduceSync(new Float64Array([rank + step]), { op: 'sum', name: `sync.${step}` });
    seen.push(out[0]);
  }
  const gathered = kolo.allgatherSync(new Int32Array([rank]), { name: 'sync.gather' });
  return { seen, gathered: Array.from(gathered.data) };
}

console.log(`RESULT ${JSON.stringify({ rank, key: 'sync', value: trainStepsWithoutYielding() })}`);
await kolo.shutdown();
