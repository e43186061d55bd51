import { checkOptions, expectInteger, expectNonEmptyString, expectOneOf, invalidArgument, rank, size } from '@kolo/core';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { loadOrt, type OrtModule } from '../ort/load-ort.js';
import { checkFeeds } from './check-feeds.js';
import { gatherRows } from './gather-rows.js';
import { checkRunOptions, type DistributedRunOptions } from './run-options.js';
import { runRows } from './run-rows.js';
import { sessionOptionsFor, type InferenceDevice } from './session-options.js';
import { shardRows } from './shard-rows.js';
import { shareModel } from './share-model.js';

/**
 * Options of {@link DistributedInferenceSession.create}.
 *
 * @example
 * ```ts
 * const options: DistributedInferenceSessionOptions = { model: 'mlp.onnx', broadcastFrom: 0, device: 'cpu' };
 * ```
 */
export interface DistributedInferenceSessionOptions {
  /** Path or bytes of the ONNX model. With `broadcastFrom`, only that rank needs it. */
  readonly model?: string | Uint8Array;
  /** The rank that reads `model` and broadcasts its bytes; default: every rank loads `model` itself. */
  readonly broadcastFrom?: number;
  /** `cuda` pins the CUDA execution provider to the GPU `localRank()`; default `cpu`. */
  readonly device?: InferenceDevice;
  /** Passed to `InferenceSession.create` (its `executionProviders` are replaced when `device` is `cuda`). */
  readonly sessionOptions?: InferenceSession.SessionOptions;
  /** Prefix of every request name; the same on every rank. Default `inference`. */
  readonly name?: string;
}

/** Output tensors by output name, each with the dataset's rows in the original order. */
export type DistributedOutputs = Record<string, Tensor>;

/**
 * An onnxruntime `InferenceSession` on every rank that runs a dataset split across ranks: each
 * rank runs its share of the rows (the core sampler without shuffling, padding dropped), and the
 * outputs come back in the original row order on every rank or on one. Every rank must call
 * `create` and `run` in the same order with the same arguments.
 *
 * @example
 * ```ts
 * await init();
 * const session = await DistributedInferenceSession.create({ model: 'mlp.onnx' });
 * const { logits } = await session.run({ x: new Tensor('float32', pixels, [1000, 784]) });
 * ```
 */
export class DistributedInferenceSession {
  private runs = 0;

  private constructor(
    private readonly ort: OrtModule,
    /** The local onnxruntime session, for anything not distributed. */
    readonly session: InferenceSession,
    private readonly name: string,
  ) {}

  /**
   * Opens the model on every rank (from its own path or bytes, or the bytes broadcast from
   * `broadcastFrom`). A collective when `broadcastFrom` is set.
   *
   * @example
   * ```ts
   * const session = await DistributedInferenceSession.create({ model: rank() === 0 ? 'mlp.onnx' : undefined, broadcastFrom: 0 });
   * ```
   */
  static async create(options: DistributedInferenceSessionOptions): Promise<DistributedInferenceSession> {
    const allowed = ['model', 'broadcastFrom', 'device', 'sessionOptions', 'name'];
    const o = checkOptions(options, { opName: 'DistributedInferenceSession.create', allowed });
    const device = expectOneOf(o.device ?? 'cpu', { name: 'device', choices: ['cpu', 'cuda'] as const });
    const name = expectNonEmptyString(o.name ?? 'inference', 'name');
    const ort = await loadOrt();
    let model = o.model;
    if (o.broadcastFrom !== undefined) {
      const root = expectInteger(o.broadcastFrom, { name: 'broadcastFrom', min: 0, max: size() - 1 });
      model = await shareModel({ model, root, name });
    } else if (typeof model !== 'string' && !(model instanceof Uint8Array)) {
      throw invalidArgument({ what: 'a model path or a Uint8Array', name: 'model', value: model });
    }
    const sessionOptions = sessionOptionsFor({ device, sessionOptions: o.sessionOptions });
    const session = typeof model === 'string'
      ? await ort.InferenceSession.create(model, sessionOptions)
      : await ort.InferenceSession.create(model as Uint8Array, sessionOptions);
    return new DistributedInferenceSession(ort, session, name);
  }

  /** The model's input names. */
  get inputNames(): readonly string[] {
    return this.session.inputNames;
  }

  /** The model's output names. */
  get outputNames(): readonly string[] {
    return this.session.outputNames;
  }

  /**
   * Runs the whole dataset `feeds` (rows along dimension 0; the same on every rank) split across
   * ranks and resolves with every requested output in the original row order: on every rank
   * (`gatherTo: 'all'`, the default) or on `root` only (`gatherTo: 'root'`; the others resolve
   * with undefined). A collective: every rank calls it with the same feeds and options.
   *
   * @example
   * ```ts
   * const out = await session.run({ x }, { batchSize: 256, gatherTo: 'root' });
   * if (out) console.log(out.logits.dims); // [rows, 10] on rank 0
   * ```
   */
  run(feeds: Record<string, Tensor>, options?: DistributedRunOptions & { gatherTo?: 'all' }): Promise<DistributedOutputs>;
  run(feeds: Record<string, Tensor>, options: DistributedRunOptions): Promise<DistributedOutputs | undefined>;
  async run(feeds: Record<string, Tensor>, options?: DistributedRunOptions): Promise<DistributedOutputs | undefined> {
    const datasetLength = checkFeeds(feeds, this.session.inputNames);
    const o = checkRunOptions(options, { outputNames: this.session.outputNames, datasetLength });
    const rowsByRank = Array.from({ length: size() }, (_, r) => shardRows({ datasetLength, numReplicas: size(), rank: r }));
    const local = await runRows({
      ort: this.ort, session: this.session, feeds, rows: rowsByRank[rank()] ?? [], batchSize: o.batchSize, fetches: o.fetches,
    });
    const keep = o.gatherTo === 'all' || rank() === o.root;
    const name = `${this.name}.${this.runs++}`;
    const gathered = await gatherRows({ local, outputNames: o.fetches, rowsByRank, name, keep });
    if (!gathered) return undefined;
    const outputs: DistributedOutputs = {};
    for (const [out, t] of gathered) outputs[out] = new this.ort.Tensor(t.type as 'float32', t.data as Float32Array, t.dims);
    return outputs;
  }

  /**
   * Releases the local onnxruntime session.
   *
   * @example
   * ```ts
   * await session.release();
   * ```
   */
  release(): Promise<void> {
    return this.session.release();
  }
}
