/**
 * `@kolo/compat-horovod`: Horovod's framework-neutral API on Kolo, so a Horovod-style script
 * changes only its import. Names are camelCase with Horovod's snake_case spellings as aliases
 * (`hvd.localRank` and `hvd.local_rank`); in-place variants keep Horovod's trailing underscore
 * (`hvd.allreduce_`) next to a readable name (`hvd.allreduceInplace`). Tensors are TypedArrays.
 * Importing this module does nothing; `hvd.init()` starts the engine.
 */
export { init, shutdown, isInitialized, type InitOptions } from './lifecycle.js';
export { isInitialized as is_initialized } from './lifecycle.js';
export {
  rank,
  size,
  localRank,
  localSize,
  crossRank,
  crossSize,
  isHomogeneous,
} from './topology.js';
export {
  localRank as local_rank,
  localSize as local_size,
  crossRank as cross_rank,
  crossSize as cross_size,
  isHomogeneous as is_homogeneous,
} from './topology.js';
export {
  mpiEnabled,
  glooEnabled,
  mpiBuilt,
  glooBuilt,
  ncclBuilt,
  cudaBuilt,
  ddlBuilt,
  cclBuilt,
  rocmBuilt,
  mpiThreadsSupported,
  mpiNotEnabledText,
} from './build-info.js';
export {
  mpiEnabled as mpi_enabled,
  glooEnabled as gloo_enabled,
  mpiBuilt as mpi_built,
  glooBuilt as gloo_built,
  ncclBuilt as nccl_built,
  cudaBuilt as cuda_built,
  ddlBuilt as ddl_built,
  cclBuilt as ccl_built,
  rocmBuilt as rocm_built,
  mpiThreadsSupported as mpi_threads_supported,
} from './build-info.js';
export {
  Average,
  Sum,
  Min,
  Max,
  Product,
  Adasum,
  adasumMessage,
  averageDeprecation,
  opSupersedesAverage,
  type ReduceOp,
} from './reduce-ops.js';
export { Compression, type Compressor, type CompressionContext } from './compression.js';
export { toFloat16Bits, fromFloat16Bits } from './float16.js';
export { poll, synchronize, type Handle } from './handles.js';
export {
  allreduce,
  allreduceInplace,
  allreduceAsync,
  allreduceAsyncInplace,
  type AllreduceOptions,
} from './allreduce.js';
export {
  allreduceInplace as allreduce_,
  allreduceAsync as allreduce_async,
  allreduceAsyncInplace as allreduce_async_,
} from './allreduce.js';
export {
  groupedAllreduce,
  groupedAllreduceInplace,
  groupedAllreduceAsync,
  groupedAllreduceAsyncInplace,
  type GroupedAllreduceOptions,
} from './grouped-allreduce.js';
export {
  groupedAllreduce as grouped_allreduce,
  groupedAllreduceInplace as grouped_allreduce_,
  groupedAllreduceAsync as grouped_allreduce_async,
  groupedAllreduceAsyncInplace as grouped_allreduce_async_,
} from './grouped-allreduce.js';
export { allgather, allgatherAsync, type AllgatherOptions } from './allgather.js';
export { allgatherAsync as allgather_async } from './allgather.js';
export {
  broadcast,
  broadcastInplace,
  broadcastAsync,
  broadcastAsyncInplace,
  type BroadcastOptions,
} from './broadcast.js';
export {
  broadcastInplace as broadcast_,
  broadcastAsync as broadcast_async,
  broadcastAsyncInplace as broadcast_async_,
} from './broadcast.js';
export { alltoall, alltoallAsync, type AlltoallOptions, type Splits } from './alltoall.js';
export { alltoallAsync as alltoall_async } from './alltoall.js';
export { alltoallMessages } from './alltoall-splits.js';
export {
  reducescatter,
  reducescatterAsync,
  reducescatterOpsText,
  type ReducescatterOptions,
} from './reducescatter.js';
export { reducescatterAsync as reducescatter_async } from './reducescatter.js';
export { join } from './join.js';
export { barrier, type BarrierOptions } from './barrier.js';
export {
  broadcastObject,
  allgatherObject,
  type ObjectCollectiveOptions,
} from './object-collectives.js';
export {
  broadcastObject as broadcast_object,
  allgatherObject as allgather_object,
} from './object-collectives.js';
export {
  ProcessSet,
  globalProcessSet,
  addProcessSet,
  removeProcessSet,
  type ProcessSetOption,
} from './process-sets.js';
export {
  globalProcessSet as global_process_set,
  addProcessSet as add_process_set,
  removeProcessSet as remove_process_set,
} from './process-sets.js';
export { startTimeline, stopTimeline, type TimelineOptions } from './timeline.js';
export { startTimeline as start_timeline, stopTimeline as stop_timeline } from './timeline.js';
export { notInitializedText } from './horovod-errors.js';
