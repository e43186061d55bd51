import * as core from '@kolo/core';
import { horovodCall } from './horovod-errors.js';
import { readOptions } from './options.js';

/**
 * Options of {@link startTimeline}.
 *
 * @example
 * ```ts
 * const options: TimelineOptions = { mark_cycles: true };
 * ```
 */
export interface TimelineOptions {
  /** Add a CYCLE_START marker per engine cycle (alias `mark_cycles`, Horovod's keyword). */
  readonly markCycles?: boolean;
  /** Horovod's spelling of `markCycles`. */
  readonly mark_cycles?: boolean;
}

/**
 * Horovod's `start_timeline(file_path, mark_cycles)`: from the next engine cycle, rank 0 writes
 * a Chrome-trace timeline of every collective to `filePath` (a row per tensor with negotiation,
 * op and transport phases; valid JSON after every write). Call it on every rank. Unlike Horovod,
 * it needs no `HOROVOD_TIMELINE=DYNAMIC`; `HOROVOD_TIMELINE`/`KOLO_TIMELINE` (or kolorun
 * `--timeline-filename`) start one at `init()` instead.
 *
 * @example
 * ```ts
 * hvd.startTimeline('/tmp/timeline.json', { mark_cycles: true });
 * ```
 */
export function startTimeline(filePath: string, options?: TimelineOptions): void {
  horovodCall(() => {
    core.size();
    const o = readOptions(options, {
      opName: 'startTimeline',
      allowed: ['markCycles'],
      aliases: { mark_cycles: 'markCycles' },
    });
    core.startTimeline(filePath, o);
  });
}

/**
 * Horovod's `stop_timeline()`: stops the timeline and closes its file.
 *
 * @example
 * ```ts
 * hvd.stopTimeline();
 * ```
 */
export function stopTimeline(): void {
  horovodCall(() => core.stopTimeline());
}
