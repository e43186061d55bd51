// Distributed inference on every rank vs. a plain single-process InferenceSession on the same rows.
import * as kolo from '@kolo/core';
import { DistributedInferenceSession } from '@kolo/adapter-onnx';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { dataset, fixtures, reporter, sameBytes, sessionOptions } from './common.mjs';

await kolo.init();
const rank = kolo.rank();
const report = reporter(rank);
const plain = await InferenceSession.create(fixtures.infer, sessionOptions);
const fromPath = await DistributedInferenceSession.create({ model: fixtures.infer, sessionOptions });
// Only rank 0 names the model; the others receive its bytes.
const shared = await DistributedInferenceSession.create({
  model: rank === 0 ? fixtures.infer : undefined, broadcastFrom: 0, sessionOptions, name: 'shared',
});

for (const rows of [100, 2]) {
  const x = new Tensor('float32', dataset(rows), [rows, 784]);
  const want = (await plain.run({ x })).logits;
  const all = (await fromPath.run({ x }, { batchSize: 7 })).logits;
  report(`all.${rows}`, { dims: all.dims, type: all.type, exact: sameBytes(all.data, want.data) });
  const root = await shared.run({ x }, { gatherTo: 'root', root: 1 });
  report(`root.${rows}`, root === undefined ? 'undefined' : { dims: root.logits.dims, exact: sameBytes(root.logits.data, want.data) });
}
await Promise.all([plain.release(), fromPath.release(), shared.release()]);
await kolo.shutdown();
