import type { NativeResult } from '@kolo/native';
import { attachCallerStack, type CallerStack, fromNative } from '../errors/from-native.js';
import type { QueuedCall } from '../runtime/request-queue.js';
import type { Running } from '../runtime/runtime-state.js';

/**
 * One round trip to the engine: requests to enqueue (`grouped`: negotiated and completed as one
 * group) and how to turn the results into a value.
 */
export interface Plan<T> extends QueuedCall<T> {
  /** Names the plan in errors; default: the first request's name. */
  readonly opName?: string;
}

/** A sequence of round trips (e.g. length, then bytes) ending in a value. */
export type Steps<T> = Generator<Plan<unknown>, T, unknown>;

/** The engine to run on and, when the caller captured it itself, the caller's stack. */
export interface RunContext {
  readonly running: Running;
  /**
   * Captured before an `await` that precedes runAsync (the frames would be gone by then).
   * Otherwise runAsync and runSync capture the frames above them, only when needed.
   */
  readonly stack?: CallerStack;
}

/**
 * Wraps one plan as steps; inside a generator, `yield* step(plan)` yields the plan's value.
 *
 * @example
 * ```ts
 * function* twice(): Steps<number> { return (yield* step(a)) + (yield* step(b)); }
 * ```
 */
export function* step<T>(plan: Plan<T>): Steps<T> {
  return (yield plan) as T;
}

/**
 * With `callerStacks` on, the calls of one JS turn that capture the caller's stack up front
 * (about 20 µs each: V8 walks and translates the optimized frames); later ones in the turn (a
 * loop over 200 gradients) rely on V8's async stack trace, as every call does by default.
 */
const eagerStacksPerTurn = 8;

/**
 * Runs steps on the engine without blocking. The first step is prepared synchronously, so
 * argument errors throw at the call; engine rejections become KoloErrors whose stack is V8's
 * async stack (the functions awaiting the call), or, with `callerStacks` on, the caller's stack
 * captured now for the first calls of a JS turn. Each step's requests join the current turn's
 * batch (see RequestQueue).
 *
 * @example
 * ```ts
 * const out = await runAsync(step(plan), { running });
 * ```
 */
export function runAsync<T>(steps: Steps<T>, context: RunContext): Promise<T> {
  const first = steps.next();
  return drive(first, steps, withCallerStack(context, runAsync));
}

/**
 * Runs one plan on the engine without blocking: {@link runAsync} of `step(plan)`, without the
 * generator or an async function: the queue resolves the caller's promise with the plan's value
 * (a loop over 200 gradients would otherwise resume 200 async frames).
 *
 * @example
 * ```ts
 * const out = await runPlanAsync(plan, { running });
 * ```
 */
export function runPlanAsync<T>(plan: Plan<T>, context: RunContext): Promise<T> {
  return context.running.queue.submit(plan, withCallerStack(context, runPlanAsync), rejectMapped);
}

/** With `callerStacks` on, `context` with the stack above `entry` for the first calls of a turn. */
function withCallerStack(context: RunContext, entry: AnyFunction): RunContext {
  const eager =
    context.stack === undefined &&
    context.running.config.callerStacks &&
    context.running.queue.length < eagerStacksPerTurn;
  return eager ? { ...context, stack: stackAbove(entry) } : context;
}

/** The error a failed submission rejects with; `driver` is the async function that awaited it. */
function failure(error: unknown, plan: Plan<unknown>, context: RunContext, driver: AnyFunction): unknown {
  // A TypeError is the binding refusing a malformed request (a bug above it): as it is.
  if (error instanceof TypeError) return error;
  return mapError(error, plan, context, context.stack ?? awaitingStack(driver));
}

/**
 * What a failed {@link runPlanAsync} call's promise follows: a promise that rejects with the
 * engine's error mapped, or with what the plan's `finish` threw, with the stack of the code
 * awaiting the call. It rejects two microtask turns later: by then the caller's promise has
 * adopted this one, so V8's async stack trace runs from here through the caller's promise to
 * the functions awaiting it (`at async trainStep`); at once, the stack would show only the
 * queue's flush, which called `finish`.
 */
async function rejectMapped(
  error: unknown,
  plan: QueuedCall<unknown>,
  context: RunContext,
  fromEngine: boolean,
): Promise<never> {
  await undefined;
  await undefined;
  if (fromEngine) throw failure(error, plan as Plan<unknown>, context, rejectMapped);
  // The caller's stack as an engine failure gets it: captured up front, or V8's async one.
  if (error instanceof Error) attachCallerStack(error, context.stack ?? awaitingStack(rejectMapped));
  throw error;
}

const sameResults = (results: readonly NativeResult[]): readonly NativeResult[] => results;

async function drive<T>(
  first: IteratorResult<Plan<unknown>, T>,
  steps: Steps<T>,
  context: RunContext,
): Promise<T> {
  let next = first;
  while (!next.done) {
    const plan = next.value;
    let results: readonly NativeResult[];
    try {
      // The results as they are: the step's own finish runs here, so what it throws is not
      // taken for an engine failure.
      results = await context.running.queue.submit({ requests: plan.requests, grouped: plan.grouped, finish: sameResults });
    } catch (error) {
      throw failure(error, plan, context, drive);
    }
    next = steps.next(plan.finish(results));
  }
  return next.value;
}

/**
 * Runs steps on the engine, **blocking the JS thread** until each completes (for code that must
 * stay synchronous, like tfjs's `applyGradients`). Throws KoloErrors with the caller's stack.
 *
 * @example
 * ```ts
 * const out = runSync(step(plan), { running });
 * ```
 */
export function runSync<T>(steps: Steps<T>, context: RunContext): T {
  let next = steps.next();
  // Async calls made earlier in this turn reach the engine first, in the order they were made.
  context.running.queue.flush();
  while (!next.done) {
    next = steps.next(enqueueSync(next.value, context, runSync));
  }
  return next.value;
}

/**
 * Runs one plan on the engine, **blocking the JS thread**: {@link runSync} of `step(plan)`,
 * without the generator and its iterator results (garbage that a loop of small blocking calls
 * makes thousands of times a second, and whose collections stall every rank waiting on this one).
 *
 * @example
 * ```ts
 * const out = runPlanSync(plan, { running });
 * ```
 */
export function runPlanSync<T>(plan: Plan<T>, context: RunContext): T {
  context.running.queue.flush();
  return plan.finish(enqueueSync(plan, context, runPlanSync));
}

/** One plan's blocking round trip; `entry` is the function whose callers an error's stack shows. */
function enqueueSync(plan: Plan<unknown>, context: RunContext, entry: AnyFunction): NativeResult[] {
  try {
    return context.running.queue.enqueueSync(plan);
  } catch (error) {
    // Still inside the caller: the frames above `entry` are the caller's, free to capture now.
    throw mapError(error, plan, context, context.stack ?? stackAbove(entry));
  }
}

// What Error.captureStackTrace accepts as the frame to cut at.
type AnyFunction = (...args: never[]) => unknown;

function mapError(error: unknown, plan: Plan<unknown>, context: RunContext, stack: CallerStack): Error {
  const opName = plan.opName ?? plan.requests[0]?.name;
  return fromNative(error, { rank: context.running.config.engine.rank, opName, stack });
}

/** The stack of the frames that called `fn`. */
function stackAbove(fn: AnyFunction): CallerStack {
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder, fn);
  return holder;
}

/**
 * Inside `driver` (drive or rejectMapped) after an await: V8's async frames of the functions
 * awaiting this run (`at async trainStep`), without the microtask machinery that resumed it.
 */
function awaitingStack(driver: AnyFunction): string {
  const frames = (stackAbove(driver) as { stack?: string }).stack?.split('\n') ?? [];
  return frames.filter((line, i) => i === 0 || !line.includes('(node:internal/')).join('\n');
}
