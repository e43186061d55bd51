import { describe, expect, it } from 'vitest';
import * as hvd from '../../src/index.js';

const aliases: Record<string, string> = {
  is_initialized: 'isInitialized',
  local_rank: 'localRank',
  local_size: 'localSize',
  cross_rank: 'crossRank',
  cross_size: 'crossSize',
  is_homogeneous: 'isHomogeneous',
  mpi_enabled: 'mpiEnabled',
  gloo_enabled: 'glooEnabled',
  mpi_built: 'mpiBuilt',
  gloo_built: 'glooBuilt',
  nccl_built: 'ncclBuilt',
  cuda_built: 'cudaBuilt',
  ddl_built: 'ddlBuilt',
  ccl_built: 'cclBuilt',
  rocm_built: 'rocmBuilt',
  mpi_threads_supported: 'mpiThreadsSupported',
  allreduce_: 'allreduceInplace',
  allreduce_async: 'allreduceAsync',
  allreduce_async_: 'allreduceAsyncInplace',
  grouped_allreduce: 'groupedAllreduce',
  grouped_allreduce_: 'groupedAllreduceInplace',
  grouped_allreduce_async: 'groupedAllreduceAsync',
  grouped_allreduce_async_: 'groupedAllreduceAsyncInplace',
  allgather_async: 'allgatherAsync',
  broadcast_: 'broadcastInplace',
  broadcast_async: 'broadcastAsync',
  broadcast_async_: 'broadcastAsyncInplace',
  alltoall_async: 'alltoallAsync',
  reducescatter_async: 'reducescatterAsync',
  broadcast_object: 'broadcastObject',
  allgather_object: 'allgatherObject',
  start_timeline: 'startTimeline',
  add_process_set: 'addProcessSet',
  remove_process_set: 'removeProcessSet',
  stop_timeline: 'stopTimeline',
};

/** Names that are the same in both spellings (and the package's constants and helpers). */
const shared = [
  'init', 'shutdown', 'rank', 'size', 'allreduce', 'allgather', 'broadcast', 'alltoall', 'reducescatter',
  'join', 'barrier', 'poll', 'synchronize', 'Average', 'Sum', 'Min', 'Max', 'Product', 'Adasum', 'Compression',
  'toFloat16Bits', 'fromFloat16Bits', 'adasumMessage', 'averageDeprecation', 'opSupersedesAverage',
  'alltoallMessages', 'reducescatterOpsText', 'mpiNotEnabledText', 'notInitializedText', 'ProcessSet',
  'globalProcessSet', 'global_process_set',
];

describe('the export surface', () => {
  it('has each snake_case alias bound to the same function as its camelCase name', () => {
    const exports = hvd as unknown as Record<string, unknown>;
    for (const [snake, camel] of Object.entries(aliases)) {
      expect(typeof exports[camel], camel).toBe('function');
      expect(exports[snake], snake).toBe(exports[camel]);
    }
  });

  it('has global_process_set bound to globalProcessSet, the global set (id 0)', () => {
    expect(hvd.global_process_set).toBe(hvd.globalProcessSet);
    expect(hvd.globalProcessSet).toBeInstanceOf(hvd.ProcessSet);
    expect(hvd.globalProcessSet.id).toBe(0);
  });

  it('exports exactly the documented names', () => {
    const expected = [...shared, ...Object.keys(aliases), ...new Set(Object.values(aliases))].sort();
    expect(Object.keys(hvd).sort()).toEqual(expected);
  });

  it("keeps Horovod's reduce op names as core's reduction strings", () => {
    expect([hvd.Average, hvd.Sum, hvd.Min, hvd.Max, hvd.Product, hvd.Adasum]).toEqual(['average', 'sum', 'min', 'max', 'product', 'adasum']);
  });
});
