import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve-config.js';
import { ObjectState } from '../../src/elastic/object-state.js';

const env = { KOLO_RANK: '3', KOLO_SIZE: '4', KOLO_STORE_ADDR: '10.0.0.1', KOLO_STORE_PORT: '29400', KOLO_JOB_ID: 'job', KOLO_ELASTIC: '1' };

describe('elastic generations in resolveConfig', () => {
  it('takes the topology from the options over the launcher env and scopes the store prefix', () => {
    const { engine } = resolveConfig({ rank: 1, size: 3, elasticGeneration: 2, generation: 5 }, env);
    expect(engine).toMatchObject({ rank: 1, size: 3, localRank: 1, localSize: 3, crossRank: 0, crossSize: 1 });
    expect(engine.storePrefix).toBe('kolo/job/elastic2');
    expect(engine.failureKeyPrefix).toBe('kolo/elastic/gen2/');
    expect(engine.store).toMatchObject({ kind: 'tcp', host: '10.0.0.1', port: 29400 });
  });

  it('keeps generation 0 exactly as a non-elastic job (env topology, gen<N> prefix)', () => {
    const { engine } = resolveConfig({ elasticGeneration: 0, generation: 1 }, env);
    expect(engine).toMatchObject({ rank: 3, size: 4 });
    expect(engine.storePrefix).toBe('kolo/job/gen1');
    expect(engine.failureKeyPrefix).toBe('kolo/');
  });

  it('refuses a negative elastic generation with the standard message', () => {
    expect(() => resolveConfig({ elasticGeneration: -1 }, env)).toThrow(/elasticGeneration/);
  });
});

describe('ObjectState', () => {
  it('commits deep copies and restores the last commit', () => {
    const state = new ObjectState({ step: 0, sums: [] as number[] });
    state.values.sums.push(4);
    state.values.step = 1;
    state.commit();
    state.values.sums.push(3);
    state.values.step = 2;
    state.restore();
    expect(state.values).toEqual({ step: 1, sums: [4] });
    state.values.sums.push(9);
    expect(state.committed).toEqual({ step: 1, sums: [4] });
  });
});
