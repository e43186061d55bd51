import { readFile, writeFile } from 'node:fs/promises';
import type { Key } from './keys.js';
import type { FloatArray, OptimizerState } from './optimizer.js';
import type { OptimizerUpdater } from './updater.js';

const format = 'kolo.kvstore.optimizer-states';

interface SavedSlot {
  readonly dtype: 'float32' | 'float64';
  readonly base64: string;
}
interface SavedStates {
  readonly format: string;
  readonly version: 1;
  readonly optimizer?: { readonly name: string; readonly hyperParams: Record<string, number> };
  readonly states: [Key, { readonly step: number; readonly slots: SavedSlot[] }][];
}

const encodeSlot = (slot: FloatArray): SavedSlot => ({
  dtype: slot instanceof Float64Array ? 'float64' : 'float32',
  base64: Buffer.from(slot.buffer, slot.byteOffset, slot.byteLength).toString('base64'),
});

function decodeSlot(slot: SavedSlot): FloatArray {
  const bytes = Buffer.from(slot.base64, 'base64');
  const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return slot.dtype === 'float64' ? new Float64Array(copy) : new Float32Array(copy);
}

/**
 * Writes the updater's per-key states (bit-exact) to `fname` as JSON; with `dumpOptimizer`, also
 * the optimizer's name and hyper-parameters.
 *
 * @example
 * ```ts
 * await saveStates('opt.states', updater, { dumpOptimizer: true });
 * ```
 */
export async function saveStates(fname: string, updater: OptimizerUpdater, options: { readonly dumpOptimizer: boolean }): Promise<void> {
  const { optimizer } = updater;
  const saved: SavedStates = {
    format,
    version: 1,
    ...(options.dumpOptimizer ? { optimizer: { name: optimizer.name, hyperParams: optimizer.hyperParams() } } : {}),
    states: [...updater.states].map(([key, s]) => [key, { step: s.step, slots: s.slots.map(encodeSlot) }]),
  };
  await writeFile(fname, JSON.stringify(saved));
}

/**
 * Replaces the updater's states with those saved in `fname`. Saved hyper-parameters (from
 * `dumpOptimizer`) are assigned to the optimizer when its name matches; another optimizer's file
 * throws a TypeError.
 *
 * @example
 * ```ts
 * await loadStates('opt.states', updater);
 * ```
 */
export async function loadStates(fname: string, updater: OptimizerUpdater): Promise<void> {
  const saved = JSON.parse(await readFile(fname, 'utf8')) as Partial<SavedStates>;
  if (saved.format !== format || !Array.isArray(saved.states)) {
    throw new TypeError(`Expected a file written by saveOptimizerStates for ${fname} but received another format`);
  }
  const { optimizer } = updater;
  if (saved.optimizer !== undefined) {
    if (saved.optimizer.name !== optimizer.name) {
      throw new TypeError(`Expected states of a '${optimizer.name}' optimizer for ${fname} but received '${saved.optimizer.name}'`);
    }
    Object.assign(optimizer, saved.optimizer.hyperParams);
  }
  updater.states.clear();
  for (const [key, s] of saved.states) {
    const state: OptimizerState = { step: s.step, slots: s.slots.map(decodeSlot) };
    updater.states.set(key, state);
  }
}
