// torch's snake_case names for the camelCase API: `dist.all_reduce(t)` is `dist.allReduce(t)`.
// Options stay camelCase (`asyncOp`, `worldSize`), as everywhere in Kolo.
import { initProcessGroup, destroyProcessGroup, isInitialized } from './init-process-group.js';
import { newGroup, getRank, getWorldSize, getBackend, getProcessGroupRanks, getGroupRank, getGlobalRank } from './groups.js';
import { isAvailable, isGlooAvailable, isMpiAvailable, isNcclAvailable, isTorchelasticLaunched, getNodeLocalRank } from './availability.js';
import { allReduce } from './all-reduce.js';
import { allGather, allGatherIntoTensor } from './all-gather.js';
import { reduceScatter, reduceScatterTensor } from './reduce-scatter.js';
import { allToAll, allToAllSingle } from './all-to-all.js';
import { monitoredBarrier } from './barrier.js';
import { broadcastObjectList, allGatherObject } from './object-collectives.js';

/** torch's `init_process_group`, i.e. {@link initProcessGroup}. @example `await dist.init_process_group({ backend: 'gloo' })` */
export const init_process_group = initProcessGroup;
/** torch's `destroy_process_group`, i.e. {@link destroyProcessGroup}. @example `await dist.destroy_process_group()` */
export const destroy_process_group = destroyProcessGroup;
/** torch's `is_initialized`, i.e. {@link isInitialized}. @example `dist.is_initialized()` */
export const is_initialized = isInitialized;
/** torch's `new_group`, i.e. {@link newGroup}. @example `const g = await dist.new_group([0, 1])` */
export const new_group = newGroup;
/** torch's `get_rank`, i.e. {@link getRank}. @example `dist.get_rank()` */
export const get_rank = getRank;
/** torch's `get_world_size`, i.e. {@link getWorldSize}. @example `dist.get_world_size()` */
export const get_world_size = getWorldSize;
/** torch's `get_backend`, i.e. {@link getBackend}. @example `dist.get_backend()` */
export const get_backend = getBackend;
/** torch's `get_process_group_ranks`, i.e. {@link getProcessGroupRanks}. @example `dist.get_process_group_ranks(g)` */
export const get_process_group_ranks = getProcessGroupRanks;
/** torch's `get_group_rank`, i.e. {@link getGroupRank}. @example `dist.get_group_rank(g, 1)` */
export const get_group_rank = getGroupRank;
/** torch's `get_global_rank`, i.e. {@link getGlobalRank}. @example `dist.get_global_rank(g, 0)` */
export const get_global_rank = getGlobalRank;
/** torch's `is_available`, i.e. {@link isAvailable}. @example `dist.is_available()` */
export const is_available = isAvailable;
/** torch's `is_gloo_available`, i.e. {@link isGlooAvailable}. @example `dist.is_gloo_available()` */
export const is_gloo_available = isGlooAvailable;
/** torch's `is_mpi_available`, i.e. {@link isMpiAvailable}. @example `dist.is_mpi_available()` */
export const is_mpi_available = isMpiAvailable;
/** torch's `is_nccl_available`, i.e. {@link isNcclAvailable}. @example `dist.is_nccl_available()` */
export const is_nccl_available = isNcclAvailable;
/** torch's `is_torchelastic_launched`, i.e. {@link isTorchelasticLaunched}. @example `dist.is_torchelastic_launched()` */
export const is_torchelastic_launched = isTorchelasticLaunched;
/** torch's `get_node_local_rank`, i.e. {@link getNodeLocalRank}. @example `dist.get_node_local_rank({ fallbackRank: 0 })` */
export const get_node_local_rank = getNodeLocalRank;
/** torch's `all_reduce`, i.e. {@link allReduce}. @example `await dist.all_reduce(t)` */
export const all_reduce = allReduce;
/** torch's `all_gather`, i.e. {@link allGather}. @example `await dist.all_gather(list, t)` */
export const all_gather = allGather;
/** torch's `all_gather_into_tensor`, i.e. {@link allGatherIntoTensor}. @example `await dist.all_gather_into_tensor(out, t)` */
export const all_gather_into_tensor = allGatherIntoTensor;
/** torch's `reduce_scatter`, i.e. {@link reduceScatter}. @example `await dist.reduce_scatter(out, list)` */
export const reduce_scatter = reduceScatter;
/** torch's `reduce_scatter_tensor`, i.e. {@link reduceScatterTensor}. @example `await dist.reduce_scatter_tensor(out, t)` */
export const reduce_scatter_tensor = reduceScatterTensor;
/** torch's `all_to_all`, i.e. {@link allToAll}. @example `await dist.all_to_all(outs, ins)` */
export const all_to_all = allToAll;
/** torch's `all_to_all_single`, i.e. {@link allToAllSingle}. @example `await dist.all_to_all_single(out, t)` */
export const all_to_all_single = allToAllSingle;
/** torch's `monitored_barrier`, i.e. {@link monitoredBarrier}. @example `await dist.monitored_barrier({ timeoutMs: 10_000 })` */
export const monitored_barrier = monitoredBarrier;
/** torch's `broadcast_object_list`, i.e. {@link broadcastObjectList}. @example `await dist.broadcast_object_list(list, { src: 0 })` */
export const broadcast_object_list = broadcastObjectList;
/** torch's `all_gather_object`, i.e. {@link allGatherObject}. @example `await dist.all_gather_object(list, obj)` */
export const all_gather_object = allGatherObject;
