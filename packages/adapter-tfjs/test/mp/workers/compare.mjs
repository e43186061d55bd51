// Helpers shared by the adapter's multi-process workers.
import { createHash } from 'node:crypto';

/** Prints one result line the test collects: `RESULT {"rank","key","value"}`. */
export function report(rank, key, value) {
  console.log(`RESULT ${JSON.stringify({ rank, key, value })}`);
}

/**
 * Largest element-wise relative difference between two lists of tensors, each element measured
 * against the larger of |reference| and `floor` (so values near zero are compared absolutely),
 * plus the largest absolute difference.
 */
export function difference(actual, expected, floor = 1e-3) {
  let maxRel = 0;
  let maxAbs = 0;
  if (actual.length !== expected.length) throw new Error(`compared ${actual.length} tensors with ${expected.length}`);
  actual.forEach((a, i) => {
    const x = a.dataSync();
    const y = expected[i].dataSync();
    if (x.length !== y.length) throw new Error(`tensor ${i}: ${x.length} values vs ${y.length}`);
    for (let j = 0; j < x.length; j++) {
      const abs = Math.abs(x[j] - y[j]);
      maxAbs = Math.max(maxAbs, abs);
      maxRel = Math.max(maxRel, abs / Math.max(Math.abs(y[j]), floor));
    }
  });
  return { maxRel, maxAbs };
}

/** SHA-256 of the bytes of a list of tensors: equal hashes mean bitwise-identical values. */
export function hashTensors(tensors) {
  const hash = createHash('sha256');
  for (const t of tensors) {
    const data = t.dataSync();
    hash.update(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  }
  return hash.digest('hex').slice(0, 16);
}
