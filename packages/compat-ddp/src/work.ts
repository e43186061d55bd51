import { invalidArgument, TimeoutError } from '@kolo/core';

type State<R> = { kind: 'pending' } | { kind: 'done'; value: R } | { kind: 'failed'; error: unknown };

/**
 * torch's `Work`: the handle of a collective started with `asyncOp: true` (and of `isend` /
 * `irecv`). The collective runs in the background; `wait()` resolves when it finished (or
 * rejects with its error), `isCompleted()` polls. The outputs are the tensors torch's
 * `result()` lists: the in-place TypedArrays, or the new tfjs tensors.
 *
 * @example
 * ```ts
 * const work = dist.allReduce(grad, { asyncOp: true });
 * doOtherThings();
 * await work.wait(); // grad now holds the sum
 * ```
 */
export class Work<R = unknown> {
  private state: State<R> = { kind: 'pending' };
  private readonly settled: Promise<R>;

  /**
   * @param running the collective; it must already be started.
   * @param outputs the output tensors of a result, for `result()` and `getFuture()`.
   * @param source for `recv`/`irecv`: the rank the data came from.
   */
  constructor(
    running: Promise<R>,
    private readonly outputs: (value: R) => readonly unknown[] = (value) => [value],
    private readonly source = -1,
  ) {
    this.settled = running.then(
      (value) => {
        this.state = { kind: 'done', value };
        return value;
      },
      (error: unknown) => {
        this.state = { kind: 'failed', error };
        throw error;
      },
    );
    // The failure is reported by wait()/getFuture(); never as an unhandled rejection.
    this.settled.catch(() => undefined);
  }

  /** True once the collective finished, successfully or not; never blocks. */
  isCompleted(): boolean {
    return this.state.kind !== 'pending';
  }

  /** True once the collective finished successfully (torch deprecated it; kept for ports). */
  isSuccess(): boolean {
    return this.state.kind === 'done';
  }

  /** The error the collective failed with, or undefined. */
  exception(): unknown {
    return this.state.kind === 'failed' ? this.state.error : undefined;
  }

  /**
   * Resolves `true` when the collective finished; rejects with its error. `timeoutMs` (torch's
   * `timeout`, default 0 = no limit) rejects with a TimeoutError when it takes longer; the
   * collective itself goes on.
   *
   * @example
   * ```ts
   * await work.wait({ timeoutMs: 5000 });
   * ```
   */
  async wait(options: { readonly timeoutMs?: number } = {}): Promise<true> {
    const timeoutMs = options.timeoutMs ?? 0;
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0) {
      throw invalidArgument({ what: 'a non-negative number of milliseconds', name: 'timeoutMs', value: timeoutMs, kind: 'range' });
    }
    if (timeoutMs === 0) {
      await this.settled;
      return true;
    }
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimeoutError(`Work.wait timed out after ${timeoutMs} ms; the collective is still running.`, { opName: 'wait' })), timeoutMs);
    });
    try {
      await Promise.race([this.settled, expired]);
      return true;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The output tensors once completed (torch's `result()`); throws before completion or after
   * a failure (with the failure).
   *
   * @example
   * ```ts
   * await work.wait();
   * const [sum] = work.result();
   * ```
   */
  result(): readonly unknown[] {
    if (this.state.kind === 'done') return this.outputs(this.state.value);
    if (this.state.kind === 'failed') throw this.state.error;
    throw new Error('Work.result() called before the work completed; await work.wait() first.');
  }

  /**
   * A Promise of the output tensors (torch's `get_future()`).
   *
   * @example
   * ```ts
   * const [gathered] = await work.getFuture();
   * ```
   */
  getFuture(): Promise<readonly unknown[]> {
    return this.settled.then((value) => this.outputs(value));
  }

  /** For `irecv`: the rank the data came from (torch's `source_rank()`); -1 otherwise. */
  sourceRank(): number {
    return this.source;
  }
}
