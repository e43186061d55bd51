/** The `code` of the errors that carry one of torch's own messages. */
export const torchErrorCodes = {
  /** The code of {@link ValueError}. */
  ValueError: 'ERR_KOLO_TORCH_VALUE',
  /** The code of {@link RuntimeError}. */
  RuntimeError: 'ERR_KOLO_TORCH_RUNTIME',
} as const;

/**
 * torch's `ValueError`, for misuse torch reports with one (its message is torch's, so ported
 * code and searches for the text keep working). `code` is `ERR_KOLO_TORCH_VALUE`; test that
 * (or `name`) rather than `instanceof`, which fails across copies of this package.
 *
 * @example
 * ```ts
 * try { await dist.initProcessGroup(); } catch (e) { if ((e as Error).name === 'ValueError') console.error(e); }
 * ```
 */
export class ValueError extends Error {
  /** Always `ERR_KOLO_TORCH_VALUE`. */
  readonly code = torchErrorCodes.ValueError;
}
ValueError.prototype.name = 'ValueError';

/**
 * torch's `RuntimeError`, for failures torch reports with one (`code` `ERR_KOLO_TORCH_RUNTIME`).
 *
 * @example
 * ```ts
 * try { await ddp.backward(lossFn); } catch (e) { if ((e as Error).name === 'RuntimeError') console.error(e); }
 * ```
 */
export class RuntimeError extends Error {
  /** Always `ERR_KOLO_TORCH_RUNTIME`. */
  readonly code = torchErrorCodes.RuntimeError;
}
RuntimeError.prototype.name = 'RuntimeError';

/**
 * A {@link ValueError} with torch's message.
 *
 * @example
 * ```ts
 * throw valueError('trying to initialize the default process group twice!');
 * ```
 */
export function valueError(message: string): ValueError {
  return new ValueError(message);
}

/**
 * A {@link RuntimeError} with torch's message.
 *
 * @example
 * ```ts
 * throw runtimeError('Cannot use ReduceOp.BXOR with non-integral dtype');
 * ```
 */
export function runtimeError(message: string): RuntimeError {
  return new RuntimeError(message);
}

/** torch's message for any call that needs the default process group before it exists. */
export const notInitializedMessage =
  'Default process group has not been initialized, please make sure to call init_process_group.';
