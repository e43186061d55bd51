import { describe, expect, it } from 'vitest';
import { ElasticLimits } from '../src/elastic-limits.js';
import { HostBlacklist } from '../src/host-blacklist.js';

/** A clock that moves only when told, and jitter fixed at `jitter`. */
function fakeClock(jitter = 0.5): { now: () => number; random: () => number; advance: (ms: number) => void } {
  let t = 1_000_000;
  return { now: () => t, random: () => jitter, advance: (ms) => void (t += ms) };
}

describe('HostBlacklist (Horovod HostManager semantics)', () => {
  it('without a cooldown range, blacklists a failed host for the rest of the job', () => {
    const clock = fakeClock();
    const blacklist = new HostBlacklist(undefined, clock);
    expect(blacklist.add('b')).toEqual({ host: 'b', added: true, cooldownMs: undefined, times: 1 });
    expect(blacklist.add('b')).toEqual({ host: 'b', added: false, cooldownMs: undefined, times: 1 });
    clock.advance(365 * 24 * 3600 * 1000);
    expect(blacklist.release()).toEqual([]);
    expect([blacklist.has('b'), blacklist.has('a'), blacklist.list()]).toEqual([true, false, ['b']]);
  });

  it('backs off exponentially: MIN*2^n plus jitter*MIN, capped at MAX, and lets the host back when the cooldown is over', () => {
    const clock = fakeClock(0.5);
    const blacklist = new HostBlacklist([1000, 10_000], clock);
    const cooldowns: (number | undefined)[] = [];
    for (let n = 1; n <= 4; n++) {
      const decision = blacklist.add('b');
      expect(decision).toMatchObject({ host: 'b', added: true, times: n });
      cooldowns.push(decision.cooldownMs);
      clock.advance((decision.cooldownMs as number) - 1);
      expect(blacklist.release()).toEqual([]);
      expect(blacklist.has('b')).toBe(true);
      clock.advance(1);
      expect(blacklist.release()).toEqual([{ host: 'b', cooldownMs: decision.cooldownMs }]);
      expect(blacklist.has('b')).toBe(false);
    }
    // 2·1000 + 500, 4·1000 + 500, 8·1000 + 500, then 16·1000 + 500 capped at 10 000.
    expect(cooldowns).toEqual([2500, 4500, 8500, 10_000]);
  });

  it('changes nothing when a host fails again during its cooldown, and never goes below MIN', () => {
    const clock = fakeClock(0);
    const blacklist = new HostBlacklist([3000, 3000], clock);
    expect(blacklist.add('a').cooldownMs).toBe(3000);
    clock.advance(2000);
    expect(blacklist.add('a')).toEqual({ host: 'a', added: false, cooldownMs: 3000, times: 1 });
    clock.advance(1000);
    expect(blacklist.release()).toEqual([{ host: 'a', cooldownMs: 3000 }]);
  });
});

describe('ElasticLimits', () => {
  it('blacklists the failed host while the job has another one, and says so in one line', () => {
    const limits = new ElasticLimits({});
    expect(limits.onFailure('rank 1 (pid 42)', 'b', ['a'])).toEqual({
      line: 'kolorun: blacklisting host b for the rest of the job after rank 1 (pid 42) failed there; no new workers will be placed on it',
    });
    expect([...limits.usable(new Map([['b', 2], ['a', 2], ['c', 1]]))]).toEqual([['a', 2], ['c', 1]]);
  });

  it('does not blacklist the only host the job has (a single-machine job goes on as before)', () => {
    const limits = new ElasticLimits({});
    expect(limits.onFailure('rank 3 (pid 7)', 'localhost', ['localhost'])).toEqual({
      line: 'kolorun: not blacklisting host localhost after rank 3 (pid 7) failed there: it is the only host the job has had',
    });
    expect([...limits.usable(new Map([['localhost', 4]]))]).toEqual([['localhost', 4]]);
  });

  it('counts the hosts host discovery lists with slots, and stops the job once every host is blacklisted', () => {
    const limits = new ElasticLimits({});
    limits.discovered(new Map([['b', 1], ['c', 0]]));
    expect(limits.onFailure('rank 0 (pid 1)', 'a', []).stop).toBeUndefined();
    expect(limits.onFailure('rank 2 (pid 3)', 'a', ['b'])).toEqual({ line: 'kolorun: host a stays blacklisted after rank 2 (pid 3) failed there too' });
    expect(limits.onFailure('rank 1 (pid 2)', 'b', ['a'])).toEqual({
      line: 'kolorun: blacklisting host b for the rest of the job after rank 1 (pid 2) failed there; no new workers will be placed on it',
      stop: 'kolorun: every host of the job is blacklisted (a, b); stopping the job',
    });
  });

  it('names the cooldown and how often the host was blacklisted, then lets it back', () => {
    const clock = fakeClock(0.25);
    const limits = new ElasticLimits({ blacklistCooldownRangeMs: [10_000, 600_000], blacklistClock: clock });
    expect(limits.onFailure('rank 1 (pid 42)', 'b', ['a']).line).toBe(
      'kolorun: blacklisting host b for 22.5 s (time 1 for this host) after rank 1 (pid 42) failed there; no new workers will be placed on it',
    );
    clock.advance(22_499);
    expect(limits.release()).toEqual([]);
    clock.advance(1);
    expect(limits.release()).toEqual(['kolorun: host b is off the blacklist after its 22.5 s cooldown; new workers may be placed on it again']);
    expect(limits.onFailure('rank 2 (pid 43)', 'b', ['a']).line).toBe(
      'kolorun: blacklisting host b for 42.5 s (time 2 for this host) after rank 2 (pid 43) failed there; no new workers will be placed on it',
    );
  });

  it('allows --reset-limit resets and refuses the next one with the Horovod message and how to raise it', () => {
    expect(new ElasticLimits({}).resetError(1000, 'after x')).toBeUndefined();
    const limits = new ElasticLimits({ resetLimit: 2 });
    expect([limits.resetError(1, 'a'), limits.resetError(2, 'b')]).toEqual([undefined, undefined]);
    expect(limits.resetError(3, 'after rank 1 (pid 42) failed: exit code 3')).toBe(
      'kolorun: Job has been reset 2 times, exceeding the limit (--reset-limit 2), so it stops instead of re-forming after rank 1 (pid 42) failed: exit code 3; raise --reset-limit, or leave it out for no limit',
    );
    expect(new ElasticLimits({ resetLimit: 0 }).resetError(1, 'to add 1 worker(s) on a')).toBe(
      'kolorun: Job has been reset 0 times, exceeding the limit (--reset-limit 0), so it stops instead of re-forming to add 1 worker(s) on a; raise --reset-limit, or leave it out for no limit',
    );
  });
});
