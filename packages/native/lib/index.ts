export { loadNative } from './load.js';
export { allCallsDone } from './binding.js';
export type {
  HostArray,
  NativeBinding,
  NativeCall,
  NativeConstants,
  NativeEngine,
  NativeError,
  NativeParts,
  NativeRequest,
  NativeResult,
  NativeSettle,
} from './binding.js';
export type { NativeAutotuneConfig, NativeEngineConfig, NativeStoreConfig, NativeTuning } from './engine-config.js';
