export { resolveConfig, type ResolveConfigOptions, type ResolvedConfig } from './resolve-config.js';
export { configOptionKeys, type ConfigOptions, type Env } from './config-options.js';
export { configDefaults } from './defaults.js';
export { detectLauncher, type LauncherKind } from './launcher-env.js';
export type { Topology } from './resolve-topology.js';
export {
  resolveGpuDevice,
  resolveHierarchical,
  resolveSharedMemory,
  resolveSingleCopy,
  resolveTransport,
  type TransportName,
} from './resolve-transport.js';
