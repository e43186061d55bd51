import { requireRunning } from './runtime-state.js';
import { expectNonEmptyString } from '../validation/checks.js';
import { checkOptions } from '../validation/check-options.js';

/** Options of {@link startTimeline}. */
export interface StartTimelineOptions {
  /** Adds a CYCLE_START marker for every engine cycle (useful to see fusion batches). */
  readonly markCycles?: boolean;
}

/**
 * Starts writing a Horovod-compatible Chrome-trace timeline to `path` from the next engine
 * cycle on. Call it on every rank (as Horovod's `start_timeline`); rank 0 writes the file, with
 * a row per tensor showing negotiation (a tick per rank), the op and its phases. The file is
 * valid JSON after every cycle; open it in Perfetto or chrome://tracing.
 *
 * @example
 * ```ts
 * startTimeline('/tmp/kolo-timeline.json', { markCycles: true });
 * ```
 */
export function startTimeline(path: string, options: StartTimelineOptions = {}): void {
  const o = checkOptions(options, { opName: 'startTimeline', allowed: ['markCycles'] });
  expectNonEmptyString(path, 'path');
  requireRunning().engine.startTimeline(path, o.markCycles === true);
}

/**
 * Stops the timeline and closes its file.
 *
 * @example
 * ```ts
 * stopTimeline();
 * ```
 */
export function stopTimeline(): void {
  requireRunning().engine.stopTimeline();
}
