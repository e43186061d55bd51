export { loadNative } from './load.js';
export type {
  HostArray,
  NativeBinding,
  NativeConstants,
  NativeEngine,
  NativeEngineConfig,
  NativeError,
  NativeRequest,
  NativeResult,
  NativeStoreConfig,
} from './binding.js';
