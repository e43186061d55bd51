export { loadNative } from './load.js';
export type {
  HostArray,
  NativeBinding,
  NativeCall,
  NativeConstants,
  NativeEngine,
  NativeEngineConfig,
  NativeError,
  NativeRequest,
  NativeResult,
  NativeSettle,
  NativeStoreConfig,
} from './binding.js';
