import type { NativeCall, NativeEngine, NativeResult } from '@kolo/native';

/** A call waiting for the end of the JS turn, and the promise it settles. */
interface Submission {
  readonly call: NativeCall;
  readonly resolve: (results: readonly NativeResult[]) => void;
  readonly reject: (error: unknown) => void;
}

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
  private pending: Submission[] = [];
  private readonly flushSoon = (): void => this.flush();

  constructor(private readonly engine: NativeEngine) {}

  /** Calls queued in this turn so far. */
  get length(): number {
    return this.pending.length;
  }

  /** Queues a call for the end of the current turn; settles as `engine.enqueue` would. */
  submit(call: NativeCall): Promise<readonly NativeResult[]> {
    if (this.pending.length === 0) queueMicrotask(this.flushSoon);
    return new Promise((resolve, reject) => {
      this.pending.push({ call, resolve, reject });
    });
  }

  /** Hands every queued call to the engine now. */
  flush(): void {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    try {
      this.engine.enqueueBatch(
        batch.map((s) => s.call),
        (indices, outcomes, done) => {
          for (let i = 0; i < indices.length; i++) {
            const submission = batch[indices[i] as number];
            const outcome = outcomes[i] ?? done;
            if (Array.isArray(outcome)) submission?.resolve(outcome);
            else submission?.reject(outcome);
          }
        },
      );
    } catch (error) {
      // Only a binding that breaks its contract gets here: fail this turn's calls, not the
      // caller (a promise settles once, so calls the binding already settled keep their outcome).
      for (const submission of batch) submission.reject(error);
    }
  }
}
