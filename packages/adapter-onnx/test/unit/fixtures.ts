import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

/** Paths of the committed MLP fixtures (scripts/fixtures/onnx/make_mlp.py). */
export const fixtures = {
  infer: join(dir, 'mlp-h16.infer.onnx'),
  train: join(dir, 'mlp-h16.train.onnx'),
};

/** Numpy's values for the probe batch and the initial weights. */
export interface Expected {
  hidden: number;
  weights: { name: string; dims: number[]; head: number[]; sum: number }[];
  probe: { rows: number; loss: number; logitsRow0: number[]; grads: Record<string, { head: number[]; sum: number }> };
}

export const expected = JSON.parse(readFileSync(join(dir, 'mlp-h16.expected.json'), 'utf8')) as Expected;

/** The probe batch of make_mlp.py: x[i, j] = ((7i + 3j) mod 11) / 10, y[i] = onehot(3i mod 10). */
export function probeBatch(rows: number): { x: Float32Array; y: Float32Array } {
  const x = new Float32Array(rows * 784).map((_, k) => ((7 * Math.floor(k / 784) + 3 * (k % 784)) % 11) / 10);
  const y = new Float32Array(rows * 10);
  for (let i = 0; i < rows; i++) y[i * 10 + ((3 * i) % 10)] = 1;
  return { x, y };
}

/** What `fn` threw (or the promise rejected with), as `{ name, code, message }`; fails if nothing. */
export function caught(fn: () => unknown): { name: string; code: unknown; message: string } {
  try {
    fn();
  } catch (e) {
    const error = e as Error & { code?: unknown };
    return { name: error.name, code: error.code, message: error.message };
  }
  throw new Error('expected a throw');
}

/** The rejection of `promise`, as `{ name, code, message }`; fails if it resolves. */
export async function rejected(promise: Promise<unknown>): Promise<{ name: string; code: unknown; message: string }> {
  try {
    await promise;
  } catch (e) {
    const error = e as Error & { code?: unknown };
    return { name: error.name, code: error.code, message: error.message };
  }
  throw new Error('expected a rejection');
}

/** The `{ name, code, message }` of a Kolo argument error. */
export const argError = (name: 'TypeError' | 'RangeError', message: string) => ({ name, code: 'ERR_KOLO_INVALID_ARG', message });
