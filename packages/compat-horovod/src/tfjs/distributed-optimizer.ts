// Horovod's `hvd.DistributedOptimizer(optimizer, ...)` for tfjs: the adapter's optimizer, taking
// Horovod's keyword spellings (snake_case) and values (`hvd.Compression.fp16`, `hvd.Average`).
import {
  DistributedOptimizer as AdapterDistributedOptimizer,
  type DistributedOptimizerOptions as AdapterOptions,
} from '@kolo/adapter-tfjs';
import { checkOptions } from '@kolo/core';
import { Compression, type Compressor } from '../compression.js';

/**
 * Options of {@link DistributedOptimizer}: the adapter's camelCase names or Horovod's snake_case
 * ones; `compression` may be `hvd.Compression.none`/`fp16` or `'none'`/`'fp16'`.
 *
 * @example
 * ```ts
 * const o: DistributedOptimizerOptions = { backward_passes_per_step: 2, compression: hvd.Compression.fp16 };
 * ```
 */
export interface DistributedOptimizerOptions {
  /** How gradients combine across ranks: `average` (default, as Horovod) or `sum`. */
  readonly op?: 'average' | 'sum';
  /** Local passes accumulated (averaged) before one allreduce and one update; default 1. */
  readonly backwardPassesPerStep?: number;
  /** Horovod's spelling of `backwardPassesPerStep`. */
  readonly backward_passes_per_step?: number;
  /** `hvd.Compression.fp16` (or `'fp16'`) halves the bytes on the wire; default none. */
  readonly compression?: 'none' | 'fp16' | Compressor;
  /** Divide gradients by this before the sum and multiply after (average only); default 1. */
  readonly gradientPredivideFactor?: number;
  /** Horovod's spelling of `gradientPredivideFactor`. */
  readonly gradient_predivide_factor?: number;
  /** Request name on the wire; give concurrent optimizers distinct names. */
  readonly name?: string;
}

const aliases: Record<string, keyof AdapterOptions> = {
  backward_passes_per_step: 'backwardPassesPerStep',
  gradient_predivide_factor: 'gradientPredivideFactor',
};
const allowed = ['op', 'backwardPassesPerStep', 'compression', 'gradientPredivideFactor', 'name', ...Object.keys(aliases)];

function toAdapterOptions(options: DistributedOptimizerOptions | undefined): AdapterOptions | undefined {
  if (options === undefined) return undefined;
  const o = checkOptions(options, { opName: 'DistributedOptimizer', allowed }) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(o)) {
    if (value === undefined) continue;
    const name = aliases[key] ?? key;
    out[name] = name === 'compression' && value === Compression.fp16 ? 'fp16' : name === 'compression' && value === Compression.none ? 'none' : value;
  }
  return out as AdapterOptions;
}

/**
 * Horovod's `DistributedOptimizer` for tfjs: wraps `optimizer` so that every update uses
 * gradients averaged across ranks (one fused allreduce per step). Accepts Horovod's keyword
 * spellings, e.g. `{ backward_passes_per_step: 4, compression: hvd.Compression.fp16 }`.
 *
 * @example
 * ```ts
 * const opt = new hvd.DistributedOptimizer(tf.train.adam(0.001 * hvd.size()));
 * model.compile({ optimizer: opt, loss: 'categoricalCrossentropy' });
 * ```
 */
export class DistributedOptimizer extends AdapterDistributedOptimizer {
  constructor(optimizer: ConstructorParameters<typeof AdapterDistributedOptimizer>[0], options?: DistributedOptimizerOptions) {
    super(optimizer, toAdapterOptions(options));
  }
}
