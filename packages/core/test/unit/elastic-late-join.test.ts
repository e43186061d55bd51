import { describe, expect, it } from 'vitest';
import { lateJoinOptions } from '../../src/elastic/late-join.js';

describe('a worker kolorun adds to a running elastic job', () => {
  it('joins the generation and place its environment names', () => {
    const env = { KOLO_ELASTIC_GENERATION: '2', KOLO_RANK: '3', KOLO_SIZE: '4', KOLO_LOCAL_RANK: '3', KOLO_LOCAL_SIZE: '4', KOLO_CROSS_RANK: '0', KOLO_CROSS_SIZE: '1' };
    expect(lateJoinOptions({}, env)).toEqual({ elasticGeneration: 2, rank: 3, size: 4, localRank: 3, localSize: 4, crossRank: 0, crossSize: 1 });
  });

  it('changes nothing for first-generation workers or a re-init that names its generation', () => {
    expect(lateJoinOptions({}, { KOLO_RANK: '1', KOLO_SIZE: '2' })).toEqual({});
    expect(lateJoinOptions({ elasticGeneration: 3 }, { KOLO_ELASTIC_GENERATION: '2', KOLO_RANK: '1' })).toEqual({});
  });

  it('refuses a malformed generation with the exact message', () => {
    expect(() => lateJoinOptions({}, { KOLO_ELASTIC_GENERATION: 'two' })).toThrow("Expected an integer >= 1 for KOLO_ELASTIC_GENERATION but received 'two'");
    expect(() => lateJoinOptions({}, { KOLO_ELASTIC_GENERATION: '0' })).toThrow('Expected an integer >= 1 for KOLO_ELASTIC_GENERATION but received 0');
  });
});
