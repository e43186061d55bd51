export { KoloError, type KoloErrorOptions } from './kolo-error.js';
export { NotInitializedError, notInitializedMessage } from './not-initialized-error.js';
export { ShutDownError } from './shut-down-error.js';
export { MismatchError } from './mismatch-error.js';
export { TimeoutError } from './timeout-error.js';
export { CommunicationError, type CommunicationErrorOptions } from './communication-error.js';
export { UnsupportedError } from './unsupported-error.js';
export { InternalError } from './internal-error.js';
export { fromNative, type CallerStack, type NativeFailureContext } from './from-native.js';
