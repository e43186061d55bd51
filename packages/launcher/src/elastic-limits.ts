import { HostBlacklist, type BlacklistClock } from './host-blacklist.js';

/** The limits an elastic job re-forms under (`--reset-limit`, `--blacklist-cooldown-range`). */
export interface ElasticLimitOptions {
  /** Most resets (new generations) the job may have; undefined: no limit. */
  readonly resetLimit?: number;
  /** Blacklist failed hosts for `[minMs, maxMs]` with backoff; undefined: for the rest of the job. */
  readonly blacklistCooldownRangeMs?: readonly [number, number];
  /** Clock and jitter of the blacklist cooldowns; default `Date.now` and `Math.random`. */
  readonly blacklistClock?: BlacklistClock;
}

const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(3))} s`;

/** What {@link ElasticLimits.onFailure} decided: the line to print, and why the job stops, if it does. */
export interface FailureVerdict {
  /** The blacklist decision, one kolorun line (no newline). */
  readonly line: string;
  /** Set when every host is blacklisted now: the line saying so; the job must stop. */
  readonly stop?: string;
}

/**
 * Horovod's elastic driver rules for when a job may re-form, each decision one kolorun line
 * (returned, not printed, so the caller orders them): hosts where a worker failed are
 * blacklisted (no new workers go there), a job whose every host is blacklisted stops, and so does
 * one that would reset more than `resetLimit` times.
 *
 * @example
 * ```ts
 * const limits = new ElasticLimits({ resetLimit: 3 });
 * limits.onFailure('rank 1 (pid 42)', 'node2', ['node1']).stop; // undefined: node1 is left
 * ```
 */
export class ElasticLimits {
  private readonly blacklist: HostBlacklist;
  /** The hosts host discovery listed last with slots: hosts the job may use. */
  private listed: string[] = [];
  /** Every host the job has run on or been offered. */
  private readonly seen = new Set<string>();

  constructor(private readonly options: ElasticLimitOptions) {
    this.blacklist = new HostBlacklist(options.blacklistCooldownRangeMs, options.blacklistClock);
  }

  /** Host discovery listed `hosts` (host → slots). */
  discovered(hosts: ReadonlyMap<string, number>): void {
    this.listed = [...hosts].filter(([, slots]) => slots > 0).map(([host]) => host);
    for (const host of this.listed) this.seen.add(host);
  }

  /** Takes hosts whose cooldown is over off the blacklist; one line each. */
  release(): string[] {
    return this.blacklist.release().map(({ host, cooldownMs }) =>
      `kolorun: host ${host} is off the blacklist after its ${seconds(cooldownMs)} cooldown; new workers may be placed on it again`);
  }

  /** `hosts` (host → slots, from host discovery) without the blacklisted ones. */
  usable(hosts: ReadonlyMap<string, number>): Map<string, number> {
    return new Map([...hosts].filter(([host]) => !this.blacklist.has(host)));
  }

  /**
   * `worker` (e.g. `rank 1 (pid 42)`) failed on `host`: blacklists the host, unless the job has
   * only ever had this one host, where it goes on without blacklisting (Horovod would end it). The
   * verdict says to stop when every host the job has now (`host`, the hosts of the workers still
   * running, `runningOn`, and those host discovery lists) is blacklisted.
   */
  onFailure(worker: string, host: string, runningOn: Iterable<string>): FailureVerdict {
    const known = [...new Set([host, ...runningOn, ...this.listed])];
    for (const h of known) this.seen.add(h);
    if (this.seen.size === 1) return { line: `kolorun: not blacklisting host ${host} after ${worker} failed there: it is the only host the job has had` };
    const decision = this.blacklist.add(host);
    const until = decision.cooldownMs === undefined ? 'for the rest of the job' : `for ${seconds(decision.cooldownMs)} (time ${decision.times} for this host)`;
    const line = decision.added
      ? `kolorun: blacklisting host ${host} ${until} after ${worker} failed there; no new workers will be placed on it`
      : `kolorun: host ${host} stays blacklisted after ${worker} failed there too`;
    if (known.some((h) => !this.blacklist.has(h))) return { line };
    return { line, stop: `kolorun: every host of the job is blacklisted (${this.blacklist.list().join(', ')}); stopping the job` };
  }

  /**
   * The line saying why the job stops when re-forming it `cause` (e.g. `after rank 1 failed`)
   * would be reset number `reset`, past `--reset-limit`; undefined while it may reset.
   */
  resetError(reset: number, cause: string): string | undefined {
    const limit = this.options.resetLimit;
    if (limit === undefined || reset <= limit) return undefined;
    return `kolorun: Job has been reset ${limit} times, exceeding the limit (--reset-limit ${limit}), so it stops instead of re-forming ${cause}; raise --reset-limit, or leave it out for no limit`;
  }
}
