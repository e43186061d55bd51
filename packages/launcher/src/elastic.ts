import type { WorkerPlacement } from './plan.js';
import { UsageError } from './usage-error.js';

/** An elastic job's bounds (`--min-np`, `--max-np`). */
export interface ElasticOptions {
  /** Fewer workers left than this fails the job. */
  readonly minNp: number;
  /** Most workers the job may have: host discovery adds workers up to this many. */
  readonly maxNp: number;
  /**
   * `--host-discovery-script`: a command kolorun runs every second; it prints the available hosts
   * as `host:slots` lines (horovodrun's format), and free slots get new workers up to `maxNp`.
   */
  readonly hostDiscoveryScript?: string;
  /**
   * `--reset-limit`: the job fails rather than re-form (a new generation after a failure, or
   * when host discovery adds or removes workers) more than this many times. Default: no limit.
   */
  readonly resetLimit?: number;
  /**
   * `--blacklist-cooldown-range MIN MAX`, in ms: a host where a worker failed gets no new workers
   * for `MIN·2ⁿ` (plus up to `MIN` of jitter) the n-th time, capped at `MAX`, as Horovod's.
   * Default: for the rest of the job. Allowed: 1 s ≤ MIN ≤ MAX ≤ 3600 s.
   */
  readonly blacklistCooldownRangeMs?: readonly [number, number];
}

/** Horovod's bounds on `--blacklist-cooldown-range`, in ms. */
const cooldownBoundsMs = [1000, 3_600_000] as const;

/**
 * A worker's place in one elastic generation, as workers read it from the store: a placement's
 * ranks and sizes, counted over the generation's workers and hosts.
 */
export type ElasticTopology = Pick<WorkerPlacement, 'rank' | 'size' | 'localRank' | 'localSize' | 'crossRank' | 'crossSize'>;

/**
 * Checks `--min-np A --max-np B -np N` (A ≤ N ≤ B); either bound alone defaults the other to N.
 * Also checks `resetLimit` (an integer ≥ 0) and `blacklistCooldownRangeMs` (1 s ≤ MIN ≤ MAX ≤ 1 h).
 *
 * @example
 * ```ts
 * checkElastic({ minNp: 2, maxNp: 4 }, 4); // passes
 * ```
 */
export function checkElastic(elastic: ElasticOptions, np: number): ElasticOptions {
  const { minNp, maxNp } = elastic;
  if (!Number.isInteger(minNp) || minNp < 1 || minNp > np) {
    throw new UsageError(`Expected an integer from 1 to -np (${np}) for --min-np but received ${minNp}`);
  }
  if (!Number.isInteger(maxNp) || maxNp < np) {
    throw new UsageError(`Expected an integer of at least -np (${np}) for --max-np but received ${maxNp}`);
  }
  const { resetLimit, blacklistCooldownRangeMs: range } = elastic;
  if (resetLimit !== undefined && (!Number.isInteger(resetLimit) || resetLimit < 0)) {
    throw new UsageError(`Expected a non-negative integer for --reset-limit but received ${resetLimit}; e.g. --reset-limit 3`);
  }
  if (range !== undefined) {
    const [minMs, maxMs] = range;
    const [lowMs, highMs] = cooldownBoundsMs;
    if (!(range.length === 2 && minMs >= lowMs && minMs <= maxMs && maxMs <= highMs)) {
      throw new UsageError(`Expected MIN MAX seconds with 1 <= MIN <= MAX <= 3600 for --blacklist-cooldown-range but received ${range.map((ms) => ms / 1000).join(' ')}; e.g. --blacklist-cooldown-range 10 600`);
    }
  }
  return elastic;
}

/**
 * The survivors' topology in the next generation: ranks 0..n-1 in their old rank order, local
 * and cross ranks regrouped by host. Keys are worker ids (`KOLO_WORKER_ID`).
 *
 * @example
 * ```ts
 * survivorTopology([w0, w2]).get('2'); // { rank: 1, size: 2, localRank: 1, localSize: 2, crossRank: 0, crossSize: 1 }
 * ```
 */
export function survivorTopology(survivors: readonly Pick<WorkerPlacement, 'rank' | 'host'>[]): Map<string, ElasticTopology> {
  const ordered = [...survivors].sort((a, b) => a.rank - b.rank);
  const hosts = [...new Set(ordered.map((w) => w.host))];
  const out = new Map<string, ElasticTopology>();
  ordered.forEach((w, rank) => {
    const local = ordered.filter((o) => o.host === w.host);
    out.set(String(w.rank), {
      rank,
      size: ordered.length,
      localRank: local.indexOf(w),
      localSize: local.length,
      crossRank: hosts.indexOf(w.host),
      crossSize: hosts.length,
    });
  });
  return out;
}

/**
 * How long an elastic job lets a worker stay stopped: the engine timeout the workers get from
 * `KOLO_TIMEOUT_SECONDS` (or horovodrun's `HOROVOD_GLOO_TIMEOUT_SECONDS`), else its 30 s default.
 *
 * @example
 * ```ts
 * stoppedKillMsOf({ KOLO_TIMEOUT_SECONDS: '5' }); // 5000
 * ```
 */
export function stoppedKillMsOf(env: NodeJS.ProcessEnv): number {
  const seconds = Number(env.KOLO_TIMEOUT_SECONDS ?? env.HOROVOD_GLOO_TIMEOUT_SECONDS);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 30_000;
}
