import { CommunicationError } from './communication-error.js';
import { InternalError } from './internal-error.js';
import { KoloError } from './kolo-error.js';
import { MismatchError } from './mismatch-error.js';
import { ShutDownError } from './shut-down-error.js';
import { TimeoutError } from './timeout-error.js';
import { UnsupportedError } from './unsupported-error.js';

/**
 * Where a call came from: an `Error` made before the native call, whose stack V8 formats only
 * when the call fails (formatting costs tens of microseconds per call), or a formatted stack.
 *
 * @example
 * ```ts
 * const stack: CallerStack = new Error();
 * ```
 */
export type CallerStack =
  | {
      /** The JS stack, formatted by V8 only when read (that is, only when the call failed). */
      readonly stack?: string;
    }
  | string
  | undefined;

/**
 * Where the failed native call came from.
 *
 * @example
 * ```ts
 * fromNative(err, { rank: 0, opName: 'allreduce.w', stack } satisfies NativeFailureContext);
 * ```
 */
export interface NativeFailureContext {
  /** This process's rank, when known. */
  readonly rank?: number;
  /** The request name (e.g. `allreduce.grad`) or the lifecycle step (e.g. `init`). */
  readonly opName?: string;
  /** The caller's stack, captured in JS before the native call and re-attached to the result. */
  readonly stack?: CallerStack;
}

/** What to do about each engine code; appended to the message. */
const hints: Readonly<Record<string, string>> = {
  KOLO_SHUT_DOWN:
    'A rank called shutdown() or a failure ended this generation; call init() to start a new one.',
  KOLO_MISMATCH:
    'Every rank must submit this name with the same dtype, shape, op, root and scale factors.',
  KOLO_DUPLICATE_NAME:
    'A request with this name is still in flight; wait for it or use a different name.',
  KOLO_TIMEOUT:
    'Check that every rank submits the same collectives, or raise timeoutMs (KOLO_TIMEOUT_SECONDS).',
  KOLO_COMMUNICATION:
    "This generation has ended; read the failing rank's log, then call shutdown() and init().",
  KOLO_UNSUPPORTED: 'capabilities() lists what this build supports.',
  KOLO_INTERNAL: 'This is a bug in Kolo; please report it with this message.',
};

interface CodedError {
  readonly message: string;
  readonly code?: unknown;
  readonly failedRank?: unknown;
}

/**
 * Turns a native rejection into the KoloError subclass named by its `code`, with a message that
 * says which request failed on which rank and what to do, and the caller's JS stack.
 *
 * @example
 * ```ts
 * const stack = new Error();
 * try { await engine.enqueue(requests, false); }
 * catch (e) { throw fromNative(e, { rank: 1, opName: 'allreduce.w', stack }); }
 * ```
 */
export function fromNative(error: unknown, context: NativeFailureContext): KoloError {
  if (KoloError.isInstance(error)) return error;
  const coded: CodedError =
    error instanceof Error ? (error as CodedError) : { message: String(error) };
  const code = typeof coded.code === 'string' ? coded.code : 'KOLO_INTERNAL';
  const failedRank = typeof coded.failedRank === 'number' ? coded.failedRank : undefined;
  const message = compose(coded.message, code, context, failedRank);
  const fields = { rank: context.rank, opName: context.opName, cause: error };
  const result = create(code, message, fields, failedRank);
  attachCallerStack(result, context.stack);
  return result;
}

/**
 * Gives `error` the frames of `stack` (a caller's stack captured elsewhere) under its own name
 * and message; leaves it as it is when there is no stack.
 *
 * @example
 * ```ts
 * attachCallerStack(error, new Error()); // error's stack now shows this line's callers
 * ```
 */
export function attachCallerStack(error: Error, stack: CallerStack): void {
  const frames = typeof stack === 'string' ? stack : stack?.stack;
  if (frames === undefined) return;
  error.stack = `${error.name}: ${error.message}\n${frames.split('\n').slice(1).join('\n')}`;
}

function compose(
  nativeMessage: string,
  code: string,
  context: NativeFailureContext,
  failedRank: number | undefined,
): string {
  const what = context.opName ?? 'Kolo request';
  const detail = nativeMessage.trim().replace(/\.$/, '');
  const hint = hints[code] ?? hints['KOLO_INTERNAL'] ?? '';
  if (code === 'KOLO_MISMATCH' && detail.startsWith('Mismatched')) {
    // Decided by the coordinator for all ranks at once: the same text on every rank.
    return `${detail}. ${hint.replace('this name', `'${what}'`)}`;
  }
  const where = context.rank === undefined ? '' : ` on rank ${context.rank}`;
  if (code === 'KOLO_MISMATCH') return `${what} failed${where}: ${detail}.`; // says what to do itself
  const named = failedRank !== undefined && detail.includes(`Rank ${failedRank} failed first`);
  const first = failedRank === undefined || named ? '' : ` Rank ${failedRank} failed first.`;
  return `${what} failed${where}: ${detail}.${first} ${hint}`;
}

type Fields = { rank: number | undefined; opName: string | undefined; cause: unknown };

function create(code: string, message: string, f: Fields, failedRank?: number): KoloError {
  switch (code) {
    case 'KOLO_SHUT_DOWN':
      return new ShutDownError(message, f);
    case 'KOLO_MISMATCH':
    case 'KOLO_DUPLICATE_NAME':
      return new MismatchError(message, { ...f, code });
    case 'KOLO_TIMEOUT':
      return new TimeoutError(message, f);
    case 'KOLO_COMMUNICATION':
      return new CommunicationError(message, { ...f, failedRank });
    case 'KOLO_UNSUPPORTED':
      return new UnsupportedError(message, f);
    default:
      return new InternalError(message, { ...f, code: 'KOLO_INTERNAL' });
  }
}
