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

// A sync call runs negotiation cycles on the calling thread. Rank 0 leaves async allreduces in
// flight that rank 1 submits only after the sync calls, so rank 0's cycles must carry them
// (unmatched) while completing the sync ones, then hand them back to the background thread.
async function syncWhileAsyncInFlight() {
  const pending = [];
  const submitAsync = () => {
    for (let i = 0; i < 3; i += 1) {
      pending.push(kolo.allreduce(new Float32Array([10 * (rank + 1) + i]), { op: 'sum', name: `mixed.async.${i}` }));
    }
  };
  if (rank === 0) submitAsync();
  const syncSums = [];
  for (let step = 0; step < 5; step += 1) {
    syncSums.push(kolo.allreduceSync(new Int32Array([rank * 100 + step]), { op: 'sum', name: `mixed.sync.${step}` })[0]);
  }
  if (rank === 1) submitAsync();
  const asyncSums = (await Promise.all(pending)).map((a) => a[0]);
  return { syncSums, asyncSums };
}
console.log(`RESULT ${JSON.stringify({ rank, key: 'mixed', value: await syncWhileAsyncInFlight() })}`);
await kolo.shutdown();
