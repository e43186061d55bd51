/** Where the host blacklist reads the time and the cooldown jitter; tests inject both. */
export interface BlacklistClock {
  /** Milliseconds on any monotonic-enough clock; default `Date.now`. */
  readonly now: () => number;
  /** A number in [0, 1) for the cooldown jitter; default `Math.random`. */
  readonly random: () => number;
}

/** What {@link HostBlacklist.add} did to a host. */
export interface BlacklistDecision {
  /** The host. */
  readonly host: string;
  /** False when the host was blacklisted already (still cooling down, or for good): nothing changed. */
  readonly added: boolean;
  /** How long it stays blacklisted, in ms; undefined: for the rest of the job. */
  readonly cooldownMs: number | undefined;
  /** How many times this host has been blacklisted, this time included. */
  readonly times: number;
}

interface HostState {
  blacklisted: boolean;
  times: number;
  /** End of the cooldown; 0 while none runs (or the blacklisting is for good). */
  untilMs: number;
  cooldownMs: number;
}

/**
 * The hosts an elastic job places no new workers on, as Horovod's `HostManager` keeps them: a
 * host where a worker failed is blacklisted for the rest of the job, or, with a cooldown range
 * `[minMs, maxMs]` (`--blacklist-cooldown-range`), for `minMs·2ⁿ` plus up to `minMs` of random
 * jitter the n-th time, never less than `minMs` or more than `maxMs`. A failure during the
 * cooldown changes nothing; {@link release} ends the cooldowns that are over.
 *
 * @example
 * ```ts
 * const blacklist = new HostBlacklist([1000, 60_000]);
 * blacklist.add('node2'); // { host: 'node2', added: true, cooldownMs: 2000 + jitter, times: 1 }
 * blacklist.has('node2'); // true until release() runs after the cooldown
 * ```
 */
export class HostBlacklist {
  private readonly hosts = new Map<string, HostState>();

  constructor(
    private readonly cooldownRangeMs: readonly [number, number] | undefined,
    private readonly clock: BlacklistClock = { now: Date.now, random: Math.random },
  ) {}

  /** Blacklists `host` (a worker failed there) and starts its cooldown, if the job has one. */
  add(host: string): BlacklistDecision {
    const state = this.hosts.get(host) ?? { blacklisted: false, times: 0, untilMs: 0, cooldownMs: 0 };
    this.hosts.set(host, state);
    const permanent = this.cooldownRangeMs === undefined;
    if (state.blacklisted) return { host, added: false, cooldownMs: permanent ? undefined : state.cooldownMs, times: state.times };
    state.blacklisted = true;
    state.times += 1;
    if (this.cooldownRangeMs !== undefined) {
      const [minMs, maxMs] = this.cooldownRangeMs;
      const backoffMs = minMs * 2 ** state.times + this.clock.random() * minMs;
      state.cooldownMs = Math.round(Math.max(minMs, Math.min(maxMs, backoffMs)));
      state.untilMs = this.clock.now() + state.cooldownMs;
    }
    return { host, added: true, cooldownMs: permanent ? undefined : state.cooldownMs, times: state.times };
  }

  /** True while `host` is blacklisted (a cooldown that is over counts until {@link release}). */
  has(host: string): boolean {
    return this.hosts.get(host)?.blacklisted ?? false;
  }

  /** The blacklisted hosts, in the order they were first blacklisted. */
  list(): string[] {
    return [...this.hosts].filter(([, s]) => s.blacklisted).map(([host]) => host);
  }

  /**
   * Takes the hosts whose cooldown is over off the blacklist and returns them with the cooldown
   * they served. A host blacklisted again later backs off longer: its count is kept.
   */
  release(): { host: string; cooldownMs: number }[] {
    const now = this.clock.now();
    const released: { host: string; cooldownMs: number }[] = [];
    for (const [host, state] of this.hosts) {
      if (!state.blacklisted || state.untilMs === 0 || state.untilMs > now) continue;
      state.blacklisted = false;
      state.untilMs = 0;
      released.push({ host, cooldownMs: state.cooldownMs });
    }
    return released;
  }
}
