import { allCallsDone, type NativeCall, type NativeEngine, type NativeResult, type NativeSettle } from '@kolo/native';

/** Every turn's flush is a reaction to this one settled promise. */
const settledPromise = Promise.resolve();

/** The results of a call the engine finished with nothing to report (as its `done`). */
const doneResults: readonly NativeResult[] = Object.freeze([Object.freeze({})]);

/** What RequestQueue keeps per call besides the call, in this order (see `sides`). */
const sideContext = 0;
const sideFail = 1;
const sideResolve = 2;
const sideReject = 3;
const sideStride = 4;

/** Resolves call `index` of a turn's `sides` with `value`. */
function settle(sides: readonly unknown[], index: number, value: unknown): void {
  (sides[index * sideStride + sideResolve] as (value: unknown) => void)(value);
}

/**
 * A call for the engine and how its results become the caller's value.
 *
 * @example
 * ```ts
 * const call: QueuedCall<HostArray> = { requests, grouped: false, finish: () => output };
 * ```
 */
export interface QueuedCall<T> extends NativeCall {
  /** The caller's value from the call's results (may throw, which rejects the call). */
  finish(results: readonly NativeResult[]): T;
  /**
   * Set on a call that may be made again unchanged (the same object: a recurring plan): true
   * while each array of its requests still has the length it was validated with. See
   * RequestQueue for what a turn of such calls skips.
   */
  intact?: () => boolean;
}

/** True when every call may recur (see QueuedCall.intact) and each is intact now. */
function recurring(calls: readonly QueuedCall<unknown>[]): boolean {
  for (let i = 0; i < calls.length; i++) {
    const intact = (calls[i] as QueuedCall<unknown>).intact;
    if (intact === undefined || !intact()) return false;
  }
  return true;
}

/** A turn of recurring calls and the engine's token for its batch (0: not kept). */
interface RecurringTurn {
  readonly calls: readonly QueuedCall<unknown>[];
  token: number;
}

/** How many turns of recurring calls a queue remembers (the engine keeps as many batches). */
const maxRecurringTurns = 16;

/** True when both lists hold the same calls (by identity) in the same order. */
function sameCalls(a: readonly QueuedCall<unknown>[], b: readonly QueuedCall<unknown>[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * What a failed call's promise follows instead of rejecting with the error as it is: usually a
 * promise that rejects with the error mapped for the caller. `fromEngine` is false where the
 * call's own `finish` threw `error`.
 *
 * @example
 * ```ts
 * const fail: CallFailure<RunContext> = async (error) => { throw mapped(error); };
 * ```
 */
export type CallFailure<C> = (error: unknown, call: QueuedCall<unknown>, context: C, fromEngine: boolean) => unknown;

/**
 * Collects the calls one turn of JS code submits (a loop of `allreduce` calls, a
 * `Promise.all` over gradients) and hands them to the engine in one native call from a
 * microtask: one crossing and one engine wake-up for the turn instead of one per call, and the
 * engine sees them together, so it negotiates and fuses them in one cycle. A call therefore
 * reaches the engine when the current synchronous code ends (the engine was already woken only
 * then): long synchronous work right after an async call delays it. Blocking calls flush the
 * queue first, so the engine still receives requests in the order the program made them.
 *
 * Each call's promise is the one its caller awaits, resolved with `call.finish(results)` as the
 * results arrive: no async function in between, whose resumption (a promise and a microtask
 * more) took 0.25–0.5 µs per call, a fifth of a loop of small allreduces' JS.
 *
 * A training loop makes the same calls every step: the same recurring plans (QueuedCall.intact)
 * in the same order. A turn of such calls is remembered by its first call (the 16 turns begun
 * most recently); when a turn repeats the one remembered, the engine is asked to keep its
 * batch, and from then on a repeat is queued again from what the engine kept, without packing
 * the calls, passing their arrays or reading them (about a fifth of 200 separate small
 * allreduces' time). A recurring blocking call does the same through {@link enqueueSync}.
 * Each call's arrays are checked first (`intact`): a detached or shrunken array makes the turn
 * an ordinary one, which the engine reads, and refuses.
 *
 * @example
 * ```ts
 * const queue = new RequestQueue(engine);
 * const output = await queue.submit({ requests, grouped: false, finish: () => output });
 * ```
 */
export class RequestQueue {
  // The calls queued in this turn, and for call i, at `sides[i * sideStride + …]`, its context,
  // its failure handler and its promise's resolve and reject functions (the `side*` offsets): a
  // call costs no object or closure of its own, and a turn two lists (each new list grows its
  // storage on its first push, about 20 ns, which five parallel lists paid per turn).
  private calls: QueuedCall<unknown>[] = [];
  private sides: unknown[] = [];
  // Recent turns of recurring calls by their first call, each with the engine's token for its
  // batch once it kept it (0: not yet); see the class comment. Holds those turns' arrays.
  private readonly recurringTurns = new Map<QueuedCall<unknown>, RecurringTurn>();
  // The engine's token for the batch it kept for each recurring blocking call.
  private readonly syncTokens = new WeakMap<QueuedCall<unknown>, number>();
  private readonly flushSoon = (): void => this.flush();
  private readonly capture = (resolve: (value: unknown) => void, reject: (error: unknown) => void): void => {
    this.sides.push(resolve, reject);
  };

  constructor(private readonly engine: NativeEngine) {}

  /** Calls queued in this turn so far. */
  get length(): number {
    return this.calls.length;
  }

  /**
   * Queues a call for the end of the current turn. Resolves with `call.finish(results)`; when
   * the engine fails the call or `finish` throws, follows `fail(error, call, context,
   * fromEngine)`, or without `fail` rejects with the error.
   */
  submit<T, C>(call: QueuedCall<T>, context?: C, fail?: CallFailure<C>): Promise<T> {
    // A resolved promise's reaction, not queueMicrotask: the same place in the microtask queue,
    // without the async resource Node makes for every queueMicrotask callback (about 0.3 µs of
    // a small call's 5).
    if (this.calls.length === 0) void settledPromise.then(this.flushSoon);
    this.calls.push(call);
    this.sides.push(context, fail);
    return new Promise(this.capture) as Promise<T>;
  }

  /** Hands every queued call to the engine now. */
  flush(): void {
    const calls = this.calls;
    if (calls.length === 0) return;
    const sides = this.sides;
    this.calls = [];
    this.sides = [];
    // Ends call `index` with `error`, through its failure handler when it has one.
    const failCall = (index: number, error: unknown, fromEngine: boolean): void => {
      const at = index * sideStride;
      const fail = sides[at + sideFail] as CallFailure<unknown> | undefined;
      if (fail === undefined) (sides[at + sideReject] as (error: unknown) => void)(error);
      else settle(sides, index, fail(error, calls[index] as QueuedCall<unknown>, sides[at + sideContext], fromEngine));
    };
    // Resolves call `index` with its finish of `results`, or fails it with what finish threw.
    const finishCall = (index: number, results: readonly NativeResult[]): void => {
      const call = calls[index];
      if (call === undefined) return;
      let value: unknown;
      try {
        value = call.finish(results);
      } catch (error) {
        failCall(index, error, false);
        return;
      }
      settle(sides, index, value);
    };
    const settleBatch: NativeSettle = (indices, outcomes, done, count = indices.length) => {
      // Where every call is `done`, outcomes is empty: reading past its end would go through
      // V8's slow property lookup (up the prototype chain) once per call.
      const all = outcomes.length === 0;
      for (let i = 0; i < count; i++) {
        const index = indices[i] as number;
        const outcome = all ? done : (outcomes[i] ?? done);
        if (!Array.isArray(outcome)) {
          failCall(index, outcome, true);
          continue;
        }
        finishCall(index, outcome as readonly NativeResult[]);
      }
    };
    try {
      // Every call finished in the engine's call with nothing to report: settled here.
      if (this.enqueue(calls, settleBatch)) for (let index = 0; index < calls.length; index++) finishCall(index, doneResults);
    } catch (error) {
      // Only a binding that breaks its contract gets here: fail this turn's calls, not the
      // caller (a promise settles once, so calls the binding already settled keep their outcome).
      for (let index = 0; index < calls.length; index++) failCall(index, error, true);
    }
  }

  /**
   * Runs one blocking call (after flushing this turn's async calls, which come first): as the
   * engine kept it where the call recurs (QueuedCall.intact), its second time asking it to keep.
   */
  enqueueSync(call: QueuedCall<unknown>): NativeResult[] {
    const engine = this.engine;
    const intact = call.intact;
    if (intact === undefined || engine.enqueueSyncRepeat === undefined || engine.keepNextBatch === undefined || !intact()) {
      return engine.enqueueSync(call.requests, call.grouped);
    }
    const token = this.syncTokens.get(call);
    if (token !== undefined) {
      const results = engine.enqueueSyncRepeat(token);
      if (results !== undefined) return results;
    }
    const next = engine.keepNextBatch();
    const results = engine.enqueueSync(call.requests, call.grouped);
    // Returned, so the call was queued and the engine kept it.
    this.syncTokens.set(call, next);
    return results;
  }

  /**
   * Hands a turn's calls to the engine, again from what it kept where they repeat a kept turn.
   * True when the engine finished every call with nothing to report and left settling them to
   * the caller (see NativeEngine.enqueueRepeat); otherwise `settle` hears of each.
   */
  private enqueue(calls: QueuedCall<unknown>[], settle: NativeSettle): boolean {
    const engine = this.engine;
    if (engine.enqueueRepeat === undefined || !recurring(calls)) {
      engine.enqueueBatch(calls, settle);
      return false;
    }
    const first = calls[0] as QueuedCall<unknown>;
    const turn = this.recurringTurns.get(first);
    if (turn === undefined || !sameCalls(calls, turn.calls)) {
      // Seen once: kept from its next time on.
      if (turn === undefined && this.recurringTurns.size >= maxRecurringTurns) {
        this.recurringTurns.delete(this.recurringTurns.keys().next().value as QueuedCall<unknown>);
      }
      this.recurringTurns.set(first, { calls, token: 0 });
      engine.enqueueBatch(calls, settle);
      return false;
    }
    if (turn.token !== 0) {
      const queued = engine.enqueueRepeat(turn.token, settle);
      if (queued !== false) return queued === allCallsDone;
    }
    turn.token = engine.enqueueBatch(calls, settle, true) ?? 0;
    return false;
  }
}
