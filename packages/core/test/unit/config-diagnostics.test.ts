import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index.js';

const single = { KOLO_RANK: '0', KOLO_SIZE: '1', KOLO_STORE_PATH: '/tmp/kolo-diag' };
const pick = (options: object, env: Record<string, string>) => {
  const { stallCheckMs, stallShutdownMs, timelinePath, timelineMarkCycles } = resolveConfig(options, { ...single, ...env }).engine;
  return { stallCheckMs, stallShutdownMs, timelinePath, timelineMarkCycles };
};

describe('stall inspector and timeline configuration', () => {
  it("defaults to Horovod's: warn after 60 s, never shut down, no timeline", () => {
    expect(pick({}, {})).toEqual({ stallCheckMs: 60_000, stallShutdownMs: 0, timelinePath: '', timelineMarkCycles: false });
  });

  it('reads Horovod names in seconds, KOLO_* first, options over both', () => {
    expect(pick({}, { HOROVOD_STALL_CHECK_TIME_SECONDS: '5', HOROVOD_STALL_SHUTDOWN_TIME_SECONDS: '12', HOROVOD_TIMELINE: '/t.json', HOROVOD_TIMELINE_MARK_CYCLES: '1' })).toEqual({
      stallCheckMs: 5000,
      stallShutdownMs: 12_000,
      timelinePath: '/t.json',
      timelineMarkCycles: true,
    });
    expect(pick({}, { KOLO_STALL_CHECK_TIME_SECONDS: '0.5', HOROVOD_STALL_CHECK_TIME_SECONDS: '5' }).stallCheckMs).toBe(500);
    expect(pick({ stallCheckTimeMs: 250, timelinePath: '/o.json' }, { KOLO_STALL_CHECK_TIME_SECONDS: '9', KOLO_TIMELINE: '/e.json' })).toMatchObject({
      stallCheckMs: 250,
      timelinePath: '/o.json',
    });
  });

  it('turns the inspector off with *_STALL_CHECK_DISABLE and keeps DYNAMIC timelines closed', () => {
    expect(pick({}, { HOROVOD_STALL_CHECK_DISABLE: '1', HOROVOD_TIMELINE: 'DYNAMIC' })).toMatchObject({ stallCheckMs: 0, timelinePath: '' });
  });

  it('names the variable in the error for a bad value', () => {
    expect(() => pick({}, { HOROVOD_STALL_CHECK_TIME_SECONDS: 'soon' })).toThrow('HOROVOD_STALL_CHECK_TIME_SECONDS');
    expect(() => pick({ timelineMarkCycles: 'yes' }, {})).toThrow('Expected a boolean for timelineMarkCycles but received');
  });

  it('captures caller stacks only when asked: the option, then KOLO_CALLER_STACKS', () => {
    const stacks = (options: object, env: Record<string, string>) => resolveConfig(options, { ...single, ...env }).callerStacks;
    expect([stacks({}, {}), stacks({}, { KOLO_CALLER_STACKS: '1' }), stacks({}, { KOLO_CALLER_STACKS: '0' })]).toEqual([false, true, false]);
    expect(stacks({ callerStacks: false }, { KOLO_CALLER_STACKS: '1' })).toBe(false);
    expect(() => stacks({ callerStacks: 1 }, {})).toThrow('Expected a boolean for callerStacks but received 1');
  });
});
