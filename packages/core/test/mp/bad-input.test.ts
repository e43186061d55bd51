import { beforeAll, describe, expect, it } from 'vitest';
import { type JobResult, perRank, runJob } from './run-job.js';

describe('bad input against the real engine on 2 workers', () => {
  let job: JobResult;
  beforeAll(async () => {
    job = await runJob(2, 'bad-input.mjs', { timeoutMs: 100_000 });
  }, 150_000);
  const both = (key: string): unknown[] => perRank(job, key, 2);
  const same = (value: unknown): unknown[] => [value, value];

  it('survives every call and exits 0', () => {
    expect(job.code, job.stderr).toBe(0);
  });

  it('refuses a size the launcher contradicts, saying which variable set it', () => {
    expect(both('wrongSize')).toEqual(
      same({ name: 'RangeError', code: 'ERR_KOLO_INVALID_ARG', message: 'Expected size 2 as the launcher set it (KOLO_SIZE), or no size option for size but received 3' }),
    );
  });

  it('accepts the same init twice and refuses a different one', () => {
    expect(both('sameInit')).toEqual(same({ ok: 2 }));
    expect(both('otherInit')).toEqual(
      same({ name: 'Error', code: 'ERR_KOLO_ALREADY_INITIALIZED', message: 'Kolo is already initialized with different options; call shutdown() before init() with new options.' }),
    );
  });

  it('runs zero-length tensors through every data collective', () => {
    expect(both('zeroAllreduce')).toEqual(same({ ok: [] }));
    expect(both('zeroAllgather')).toEqual(same({ ok: [0, 3] }));
    expect(both('zeroBroadcast')).toEqual(same({ ok: [] }));
    expect(both('zeroAlltoall')).toEqual(same({ ok: [0, 0] }));
    expect(both('zeroReducescatter')).toEqual([{ ok: [0] }, { ok: [0] }]);
  });

  it('passes NaN and infinities through a sum', () => {
    expect(both('nonFinite')).toEqual(same({ ok: ['NaN', 'Infinity', '-Infinity', '1'] }));
  });

  it('refuses an out-of-range root at the edge and the next op still works', () => {
    expect(both('badRoot')).toEqual(same({ name: 'RangeError', code: 'ERR_KOLO_INVALID_ARG', message: 'Expected an integer in [0, 1] for root but received 2' }));
    expect(both('afterBad')).toEqual(same({ ok: [2] }));
  });

  it('throws NotInitializedError after shutdown; a second shutdown resolves', () => {
    expect(both('afterShutdown')).toEqual(same({ name: 'NotInitializedError', code: 'KOLO_NOT_INITIALIZED', message: 'Kolo has not been initialized; call init() first.' }));
    expect(both('secondShutdown')).toEqual(same({}));
  });
});
