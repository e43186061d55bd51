// broadcastInitializers / averageInitializers on decoded models and on tensor lists.
import * as kolo from '@kolo/core';
import { averageInitializers, broadcastInitializers, DistributedTrainer, OnnxModel } from '@kolo/adapter-onnx';
import { fixtures, reporter, sessionOptions } from './common.mjs';

await kolo.init();
const rank = kolo.rank();
const report = reporter(rank);
const fill = (model, value) => {
  for (const t of model.initializers()) if (t.type === 'float32') model.setInitializer({ ...t, data: t.data.map((_, k) => value(k)) });
};
const distinct = (model) => model.initializers().map((t) => [t.name, [...new Set(Array.from(t.data, String))].slice(0, 8)]);

// Integer-valued floats so the mean is exact: rank r holds (k mod 7) + 3r; the mean is (k mod 7) + 3 on 3 ranks.
const model = await OnnxModel.load(fixtures.infer);
fill(model, (k) => (k % 7) + 3 * rank);
await averageInitializers(model);
report('average', model.initializers().every((t) => t.data.every((v, k) => v === (k % 7) + 3 * ((kolo.size() - 1) / 2))));

fill(model, () => rank + 0.5);
await broadcastInitializers(model, { root: 2 });
report('broadcast', distinct(model));

// The training graph stores int64 axis constants and a float32 'zero': only the float is averaged.
const train = await OnnxModel.load(fixtures.train);
train.setInitializer({ name: 'zero', type: 'float32', dims: [], data: Float32Array.of(rank) });
train.setInitializer({ name: 'axis1', type: 'int64', dims: [1], data: BigInt64Array.of(BigInt(rank)) });
await averageInitializers(train, { name: 'train' });
report('mixed', { zero: train.initializer('zero').data[0], axis1: String(train.initializer('axis1').data[0]) });

// A tensor list, broadcast in place.
const tensors = [{ name: 'w', type: 'float64', dims: [2], data: Float64Array.of(rank, -rank) }];
await broadcastInitializers(tensors, { root: 1, name: 'list' });
report('list', Array.from(tensors[0].data));

// Different layouts: every rank rejects with the same message instead of waiting for the timeout.
const layout = rank === 1 ? [{ name: 'w', type: 'float32', dims: [3], data: new Float32Array(3) }] : [{ name: 'w', type: 'float32', dims: [2], data: new Float32Array(2) }];
try {
  await averageInitializers(layout, { name: 'bad' });
  report('mismatch', null);
} catch (err) {
  report('mismatch', { name: err.name, code: err.code, isKoloError: kolo.KoloError.isInstance(err), message: err.message });
}
// A trainer whose initial weights only rank 1 has: every rank starts from them.
const optimizer = { type: 'sgd', learningRate: 0.1 };
const trainer = await DistributedTrainer.create({
  trainingModel: fixtures.train, initialWeights: rank === 1 ? fixtures.infer : undefined, broadcastFrom: 1, optimizer, sessionOptions,
});
const expectedW1 = (await OnnxModel.load(fixtures.infer)).initializer('W1').data;
report('trainerStart', trainer.weights()[0].data.every((v, k) => v === expectedW1[k]));
await trainer.release();

// The root cannot read its initial weights: every rank rejects instead of waiting.
try {
  await DistributedTrainer.create({ trainingModel: fixtures.train, initialWeights: '/nonexistent/w.onnx', optimizer, name: 'broken' });
  report('trainerFailure', null);
} catch (err) {
  report('trainerFailure', { name: err.name, code: err.code, message: err.message });
}
await kolo.shutdown();
