import type { NativeCall, NativeEngine, NativeResult } from '@kolo/native';

/** Every turn's flush is a reaction to this one settled promise. */
const settledPromise = Promise.resolve();

/**
 * Collects the calls one turn of JS code submits (a loop of `allreduce` calls, a
 * `Promise.all` over gradients) and hands them to the engine in one native call from a
 * microtask: one crossing and one engine wake-up for the turn instead of one per call, and the
 * engine sees them together, so it negotiates and fuses them in one cycle. A call therefore
 * reaches the engine when the current synchronous code ends (the engine was already woken only
 * then): long synchronous work right after an async call delays it. Blocking calls flush the
 * queue first, so the engine still receives requests in the order the program made them.
 *
 * @example
 * ```ts
 * const queue = new RequestQueue(engine);
 * const results = await queue.submit({ requests, grouped: false });
 * ```
 */
export class RequestQueue {
  // The calls queued in this turn and their promises' settle functions, index for index:
  // parallel lists, so a call costs no object or closure of its own.
  private calls: NativeCall[] = [];
  private resolves: ((results: readonly NativeResult[]) => void)[] = [];
  private rejects: ((error: unknown) => void)[] = [];
  private readonly flushSoon = (): void => this.flush();
  private readonly capture = (
    resolve: (results: readonly NativeResult[]) => void,
    reject: (error: unknown) => void,
  ): void => {
    this.resolves.push(resolve);
    this.rejects.push(reject);
  };

  constructor(private readonly engine: NativeEngine) {}

  /** Calls queued in this turn so far. */
  get length(): number {
    return this.calls.length;
  }

  /** Queues a call for the end of the current turn; settles as `engine.enqueue` would. */
  submit(call: NativeCall): Promise<readonly NativeResult[]> {
    // A resolved promise's reaction, not queueMicrotask: the same place in the microtask queue,
    // without the async resource Node makes for every queueMicrotask callback (about 0.3 µs of
    // a small call's 5).
    if (this.calls.length === 0) void settledPromise.then(this.flushSoon);
    this.calls.push(call);
    return new Promise(this.capture);
  }

  /** Hands every queued call to the engine now. */
  flush(): void {
    const calls = this.calls;
    if (calls.length === 0) return;
    const resolves = this.resolves;
    const rejects = this.rejects;
    this.calls = [];
    this.resolves = [];
    this.rejects = [];
    try {
      this.engine.enqueueBatch(calls, (indices, outcomes, done, count = indices.length) => {
        // Where every call is `done`, outcomes is empty: reading past its end would go through
        // V8's slow property lookup (up the prototype chain) once per call.
        const all = outcomes.length === 0;
        for (let i = 0; i < count; i++) {
          const index = indices[i] as number;
          const outcome = all ? done : (outcomes[i] ?? done);
          if (Array.isArray(outcome)) resolves[index]?.(outcome);
          else rejects[index]?.(outcome);
        }
      });
    } catch (error) {
      // Only a binding that breaks its contract gets here: fail this turn's calls, not the
      // caller (a promise settles once, so calls the binding already settled keep their outcome).
      for (const reject of rejects) reject(error);
    }
  }
}
