import type { NativeRequest, NativeResult } from '@kolo/native';
import { type CallerStack, fromNative } from '../errors/from-native.js';
import type { Running } from '../runtime/runtime-state.js';

/** One round trip to the engine: requests to enqueue and how to turn the results into a value. */
export interface Plan<T> {
  readonly requests: readonly NativeRequest[];
  /** Negotiate and complete the requests as one group. */
  readonly grouped: boolean;
  /** Names the plan in errors; default: the first request's name. */
  readonly opName?: string;
  finish(results: readonly NativeResult[]): T;
}

/** A sequence of round trips (e.g. length, then bytes) ending in a value. */
export type Steps<T> = Generator<Plan<unknown>, T, unknown>;

/** The engine to run on and the caller's stack, captured before any native call. */
export interface RunContext {
  readonly running: Running;
  readonly stack: CallerStack;
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
 * Runs steps on the engine without blocking. The first step is prepared synchronously, so
 * argument errors throw at the call; engine rejections become KoloErrors with the caller's stack.
 *
 * @example
 * ```ts
 * const out = await runAsync(step(plan), { running, stack: new Error() });
 * ```
 */
export function runAsync<T>(steps: Steps<T>, context: RunContext): Promise<T> {
  let next = steps.next();
  const loop = async (): Promise<T> => {
    while (!next.done) {
      const plan = next.value;
      const results = await context.running.engine
        .enqueue(plan.requests, plan.grouped)
        .catch((error: unknown) => Promise.reject(mapError(error, plan, context)));
      next = steps.next(plan.finish(results));
    }
    return next.value;
  };
  return loop();
}

/**
 * Runs steps on the engine, **blocking the JS thread** until each completes (for code that must
 * stay synchronous, like tfjs's `applyGradients`). Throws KoloErrors with the caller's stack.
 *
 * @example
 * ```ts
 * const out = runSync(step(plan), { running, stack: new Error() });
 * ```
 */
export function runSync<T>(steps: Steps<T>, context: RunContext): T {
  let next = steps.next();
  while (!next.done) {
    const plan = next.value;
    let results: NativeResult[];
    try {
      results = context.running.engine.enqueueSync(plan.requests, plan.grouped);
    } catch (error) {
      throw mapError(error, plan, context);
    }
    next = steps.next(plan.finish(results));
  }
  return next.value;
}

function mapError(error: unknown, plan: Plan<unknown>, context: RunContext): Error {
  const opName = plan.opName ?? plan.requests[0]?.name;
  return fromNative(error, {
    rank: context.running.config.engine.rank,
    opName,
    stack: context.stack,
  });
}
