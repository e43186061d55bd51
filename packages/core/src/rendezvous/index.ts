/**
 * The rendezvous store: {@link StoreServer} (hosted by kolorun) and {@link StoreClient}, speaking
 * the binary protocol documented in store-protocol.ts (shared with the C++ client).
 */
export { StoreServer, type StoreServerOptions, type StoreWaitOptions } from './store-server.js';
export {
  StoreClient,
  STORE_CLIENT_DEFAULTS,
  type StoreClientOptions,
  type StoreBlockingOptions,
} from './store-client.js';
export {
  StoreConnectionError,
  StoreProtocolError,
  StoreTimeoutError,
  StoreUnauthorizedError,
} from './store-errors.js';
export { STORE_AUTH, STORE_LIMITS, StoreOp, StoreStatus } from './store-protocol.js';
