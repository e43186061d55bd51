// Shared by the ONNX multi-process workers: fixture paths, deterministic data, RESULT reporting.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const fixtureDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures');
export const fixtures = { infer: join(fixtureDir, 'mlp-h16.infer.onnx'), train: join(fixtureDir, 'mlp-h16.train.onnx') };

/** One thread per ORT session: the test machine has two cores shared by several workers. */
export const sessionOptions = { intraOpNumThreads: 1, interOpNumThreads: 1 };

/** Prints `RESULT {"rank","key","value"}` for run-job.ts. */
export function reporter(rank) {
  return (key, value) => console.log(`RESULT ${JSON.stringify({ rank, key, value })}`);
}

/** Row i of a dataset in which every row differs: ((31 i + 17 j) mod 101) / 100 + i / 1000. */
export function dataset(rows) {
  return new Float32Array(rows * 784).map((_, k) => {
    const i = Math.floor(k / 784);
    return ((31 * i + 17 * (k % 784)) % 101) / 100 + i / 1000;
  });
}

/** One-hot labels (7 i + 3) mod 10 for the rows of {@link dataset}. */
export function labels(rows) {
  const y = new Float32Array(rows * 10);
  for (let i = 0; i < rows; i++) y[i * 10 + ((7 * i + 3) % 10)] = 1;
  return y;
}

/** True when two typed arrays hold the same bytes. */
export function sameBytes(a, b) {
  const view = (t) => Buffer.from(t.buffer, t.byteOffset, t.byteLength);
  return a.length === b.length && Buffer.compare(view(a), view(b)) === 0;
}
