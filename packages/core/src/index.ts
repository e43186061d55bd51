/**
 * `@kolo/core`: Kolo's framework-neutral API — lifecycle, collectives on TypedArrays,
 * configuration, typed errors, the distributed sampler and the rendezvous store. Importing this
 * module does nothing; `init()` loads the native engine.
 */
export * from './errors/index.js';
export * from './validation/index.js';
export * from './config/index.js';
export * from './runtime/index.js';
export * from './collectives/index.js';
export * from './sampler/index.js';
export * from './rendezvous/index.js';
/** Horovod-style elastic training: `elastic.run`, `elastic.ObjectState`. */
export * as elastic from './elastic/index.js';
export type { HostArray, NativeStoreConfig } from '@kolo/native';
