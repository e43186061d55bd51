// Horovod-style ONNX training through '@kolo/compat-horovod/onnx': rank 1 perturbs its copy of
// the model, hvd.broadcast_parameters restores rank 0's, then hvd.DistributedTrainer trains.
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as hvd from '@kolo/compat-horovod/onnx';
import { Tensor } from 'onnxruntime-node';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '../../../../adapter-onnx/test/fixtures');
await hvd.init();
const rank = hvd.rank();
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank, key, value })}`);
const digest = (tensors) => {
  const h = createHash('sha256');
  for (const t of tensors) h.update(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  return h.digest('hex');
};

const model = await hvd.OnnxModel.load(join(fixtures, 'mlp-h16.infer.onnx'));
const original = digest(model.initializers());
if (rank === 1) {
  const [first] = model.initializers();
  model.setInitializer({ ...first, data: new Float32Array(first.data.length).fill(7) });
}
report('perturbed', digest(model.initializers()) !== original);
await hvd.broadcast_parameters(model, 0);
report('broadcast', { same: digest(model.initializers()) === original });

const trainer = await hvd.DistributedTrainer.create({
  trainingModel: join(fixtures, 'mlp-h16.train.onnx'),
  initialWeights: join(fixtures, 'mlp-h16.infer.onnx'),
  optimizer: { type: 'sgd', learningRate: 0.1 },
  sessionOptions: { intraOpNumThreads: 1, interOpNumThreads: 1 },
});
const x = new Float32Array(4 * 784).map((_, k) => ((k * 13 + rank * 7) % 97) / 97);
const y = new Float32Array(4 * 10).map((_, k) => (k % 10 === (Math.floor(k / 10) + rank) % 10 ? 1 : 0));
const losses = [];
for (let step = 0; step < 3; step += 1) {
  losses.push((await trainer.step({ x: new Tensor('float32', x, [4, 784]), y: new Tensor('float32', y, [4, 10]) })).loss);
}
report('trained', { losses, weights: digest(trainer.weights()) });
await trainer.release();
await hvd.shutdown();
