export { loadNative } from './load.js';
export type {
  HostArray,
  NativeAutotuneConfig,
  NativeBinding,
  NativeCall,
  NativeConstants,
  NativeEngine,
  NativeEngineConfig,
  NativeError,
  NativeParts,
  NativeRequest,
  NativeResult,
  NativeSettle,
  NativeStoreConfig,
  NativeTuning,
} from './binding.js';
