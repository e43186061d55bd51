import { dispose, type Optimizer, type Tensor } from '@tensorflow/tfjs-core';
import type { LayersModel } from '@tensorflow/tfjs-layers';
import { broadcastObject, elastic, invalidArgument } from '@kolo/core';
import { broadcastOptimizerState, canTransferState } from './broadcast-optimizer-state.js';
import { broadcastModel } from './broadcast-variables.js';

/** Options of {@link TfjsState}. */
export interface TfjsStateOptions<T extends object> {
  /** Its state (Adam's moments, the iteration count) is synced from rank 0 with the model. */
  readonly optimizer?: Optimizer;
  /** Plain JSON values saved, restored and synced with the weights (epoch, batch…). */
  readonly values?: T;
}

/**
 * Elastic training state of a tfjs model, as Horovod's `TensorFlowKerasState`: `commit()` keeps a
 * copy of the model's weights and of `values`, `restore()` puts them back after a failed step,
 * `sync()` gives every rank rank 0's weights, optimizer state and values. Pass it to
 * `elastic.run`. The optimizer's own state is synced, not rolled back: after a reset every rank
 * takes rank 0's.
 *
 * @example
 * ```ts
 * const state = new TfjsState(model, { optimizer, values: { epoch: 0 } });
 * await elastic.run(async (s) => { for (; s.values.epoch < 5; s.values.epoch += 1) { await model.fit(xs, ys); s.commit(); } }, state);
 * ```
 */
export class TfjsState<T extends object = Record<string, never>> implements elastic.ElasticState {
  private saved: Tensor[];
  private savedValues: T;
  private current: T;

  /** @param model the model whose weights `commit` saves and `restore` puts back. */
  constructor(
    readonly model: LayersModel,
    private readonly options: TfjsStateOptions<T> = {},
  ) {
    if (model === null || typeof model !== 'object' || typeof model.getWeights !== 'function') {
      throw invalidArgument({ what: 'a tfjs LayersModel', name: 'model', value: model });
    }
    this.current = structuredClone(options.values ?? ({} as T));
    this.savedValues = structuredClone(this.current);
    this.saved = model.getWeights().map((w) => w.clone());
  }

  /** The live values; mutate them freely between commits. */
  get values(): T {
    return this.current;
  }

  /** Copies the weights and values as the last good state, then checks for added hosts. */
  commit(): void {
    this.save();
    elastic.checkHostUpdates();
  }

  /** Puts the last committed weights and values back. */
  restore(): void {
    this.model.setWeights(this.saved);
    this.current = structuredClone(this.savedValues);
  }

  /** Gives every rank rank 0's weights, optimizer state and values, and commits them. */
  async sync(): Promise<void> {
    await broadcastModel(this.model, 0);
    const optimizer = this.options.optimizer;
    if (optimizer !== undefined && canTransferState(optimizer)) await broadcastOptimizerState(optimizer, 0);
    this.current = await broadcastObject(this.current, { root: 0, name: 'kolo.elastic.tfjsState' });
    this.save();
  }

  private save(): void {
    const previous = this.saved;
    this.saved = this.model.getWeights().map((w) => w.clone());
    this.savedValues = structuredClone(this.current);
    dispose(previous);
  }
}
