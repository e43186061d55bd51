/**
 * `@kolo/compat-kvstore`: MXNet's KVStore API (`mx.kv.create`, init/push/pull/pushpull, update on
 * kvstore, 2-bit compression) with Alibaba AIACC-Training's (Perseus) additions (`local_rank`,
 * `param_only`, push `op`), plus a gluon.Trainer analogue, on Kolo. Values are TypedArrays here;
 * `@kolo/compat-kvstore/tfjs` adds tfjs tensors. Importing this module does nothing.
 */
export { create, openStore, shutdown } from './create.js';
export { KVStore } from './kvstore.js';
export { KVStoreBase, type Keys, type Values } from './kvstore-base.js';
export type {
  InitOptions,
  PushOptions,
  PullOptions,
  PushpullOptions,
  BroadcastOptions,
  RowSparsePullOptions,
  SaveStatesOptions,
} from './store-options.js';
export type { Key } from './keys.js';
export type { PushOp } from './local-reduce.js';
export { parseStoreType, storeTypeNames, type StoreKind, type StoreType } from './store-type.js';
export { typedArrayIO, type HostView, type ValueIO } from './value-io.js';
export { Compressor, type GradientCompressionParams } from './gradient-compression.js';
export { quantize2Bit, dequantize2Bit, quantize2BitCodes } from './two-bit.js';
export { toFloat16Bits, fromFloat16Bits } from './float16.js';
export type { Optimizer, OptimizerState, FloatArray } from './optimizer.js';
export type { OptimizerParams } from './optimizer-params.js';
export { SGD, type SGDParams } from './sgd.js';
export { Adam, type AdamParams } from './adam.js';
export { createOptimizer, type OptimizerName } from './create-optimizer.js';
export type { Updater } from './updater.js';
export { Trainer } from './trainer.js';
export type { TrainerOptions, TrainerStore } from './trainer-plan.js';
export { invalidStateCode } from './misuse.js';
