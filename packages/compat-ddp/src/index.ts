/**
 * `@kolo/compat-ddp`: torch.distributed on Kolo — process groups, collectives with torch's
 * defaults and Work handles, DistributedDataParallel for TensorFlow.js LayersModels and torch's
 * DistributedSampler — in camelCase, with snake_case aliases. Importing it does nothing (and
 * never loads TensorFlow.js); `initProcessGroup()` starts the engine.
 *
 * @example
 * ```ts
 * import * as dist from '@kolo/compat-ddp';
 * await dist.initProcessGroup({ backend: 'gloo' });
 * await dist.allReduce(new Float32Array([dist.getRank()]));
 * await dist.destroyProcessGroup();
 * ```
 */
export { Backend, defaultTimeoutMs, type BackendName } from './backend.js';
export { initProcessGroup, destroyProcessGroup, isInitialized, type InitProcessGroupOptions } from './init-process-group.js';
export { ProcessGroup, GroupMember } from './process-group.js';
export {
  newGroup,
  getRank,
  getWorldSize,
  getBackend,
  getProcessGroupRanks,
  getGroupRank,
  getGlobalRank,
  type NewGroupOptions,
} from './groups.js';
export {
  isAvailable,
  isGlooAvailable,
  isMpiAvailable,
  isNcclAvailable,
  isTorchelasticLaunched,
  getNodeLocalRank,
} from './availability.js';
export { ReduceOp, type ReduceOpName } from './reduce-op.js';
export { Work } from './work.js';
export type { Tensor } from './tensor-io.js';
export type { CollectiveResult, CommonOptions } from './collective.js';
export { allReduce, reduce, type AllReduceOptions, type ReduceOptions } from './all-reduce.js';
export { broadcast, type BroadcastOptions } from './broadcast.js';
export { allGather, allGatherIntoTensor } from './all-gather.js';
export { gather, scatter, type GatherOptions, type ScatterOptions } from './gather-scatter.js';
export { reduceScatter, reduceScatterTensor } from './reduce-scatter.js';
export { allToAll, allToAllSingle, type AllToAllSingleOptions } from './all-to-all.js';
export { barrier, monitoredBarrier, type MonitoredBarrierOptions } from './barrier.js';
export { send, recv, isend, irecv, type PointToPointOptions } from './point-to-point.js';
export { p2pMaxWorldSize } from './pair-sets.js';
export { broadcastObjectList, allGatherObject, type BroadcastObjectListOptions } from './object-collectives.js';
export { DistributedSampler, type DistributedSamplerOptions, type SizedDataset } from './distributed-sampler.js';
export { torchErrorCodes, ValueError, RuntimeError } from './torch-errors.js';
export { DistributedDataParallel } from './ddp/distributed-data-parallel.js';
export type { DistributedDataParallelOptions } from './ddp/ddp-options.js';
export type { JoinOptions } from './ddp/ddp-join.js';
export { assignBuckets, firstBucketBytes, type BucketParam } from './ddp/bucket-assignment.js';
export * from './aliases.js';
export { SyncBatchNorm } from './ddp/sync-batch-norm.js';
