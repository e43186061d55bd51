// Misuse across ranks: different models, Adamax state, an unreadable checkpoint. Every rank must
// fail with the same message instead of hanging.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import * as kolo from '@kolo/core';
import { broadcastModel, broadcastOptimizerState, restoreCheckpoint } from '@kolo/adapter-tfjs';
import { report } from './compare.mjs';

await kolo.init();
const rank = kolo.rank();
const outcome = async (promise) => promise.then(() => 'resolved', (e) => `${e.name}: ${e.message}`);

const units = rank === 0 ? 3 : 5;
const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [4], units })] });
report(rank, 'shapes', await outcome(broadcastModel(model, 0)));

const extra = rank === 0 ? [tf.layers.dense({ units: 2 })] : [];
const deeper = tf.sequential({ layers: [tf.layers.dense({ inputShape: [4], units: 3 }), ...extra] });
report(rank, 'count', await outcome(broadcastModel(deeper, 0)));

report(rank, 'adamax', await outcome(broadcastOptimizerState(tf.train.adamax(0.01), 0)));

const directory = process.argv[2];
if (rank === 0) {
  await mkdir(join(directory, 'epoch-00001'), { recursive: true });
  await writeFile(join(directory, 'latest.json'), JSON.stringify({ epoch: 1, path: 'epoch-00001' }));
}
report(rank, 'restore', await outcome(restoreCheckpoint(deeper, { directory })));
// The engine is still usable afterwards.
report(rank, 'after', Array.from(await kolo.allreduce(new Float32Array([rank + 1]), { op: 'sum' })));
await kolo.shutdown();
