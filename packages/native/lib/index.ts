export { loadNative } from './load.js';
export type {
  HostArray,
  NativeAutotuneConfig,
  NativeBinding,
  NativeConstants,
  NativeEngine,
  NativeEngineConfig,
  NativeError,
  NativeRequest,
  NativeResult,
  NativeStoreConfig,
  NativeTuning,
} from './binding.js';
