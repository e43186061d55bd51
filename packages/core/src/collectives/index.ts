export { allreduce, allreduceSync, type AllreduceOptions } from './allreduce.js';
export {
  groupedAllreduce,
  groupedAllreduceSync,
  type GroupedAllreduceOptions,
} from './grouped-allreduce.js';
export { allgather, allgatherSync, type AllgatherOptions, type ShapedResult } from './allgather.js';
export { broadcast, broadcastSync, type BroadcastOptions } from './broadcast.js';
export { alltoall, alltoallSync, type AlltoallOptions, type AlltoallResult } from './alltoall.js';
export {
  reducescatter,
  reducescatterSync,
  scatterRows,
  type ReducescatterOptions,
} from './reducescatter.js';
export { barrier, barrierSync, type BarrierOptions } from './barrier.js';
export { join, joinSync } from './join.js';
export {
  broadcastObject,
  broadcastObjectSync,
  type BroadcastObjectOptions,
} from './broadcast-object.js';
export {
  allgatherObject,
  allgatherObjectSync,
  type AllgatherObjectOptions,
} from './allgather-object.js';
export { dtypeOf, type DtypeName } from './dtype.js';
export type { ReduceOpName } from './reduce-op.js';
export type { SameKind } from './same-kind.js';
export { ProcessSet, addProcessSet, removeProcessSet, type Group } from './process-set.js';
