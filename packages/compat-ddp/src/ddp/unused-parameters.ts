/**
 * torch's RuntimeError text for parameters that received no gradient while
 * `findUnusedParameters` is off (as torch 2.x prints it with TORCH_DISTRIBUTED_DEBUG unset),
 * naming their registration indices.
 *
 * @example
 * ```ts
 * unusedParametersMessage({ rank: 0, indices: [2, 3] }).endsWith('as part of this error'); // true
 * ```
 */
export function unusedParametersMessage(spec: { rank: number; indices: readonly number[] }): string {
  return (
    'Expected to have finished reduction in the prior iteration before starting a new one. ' +
    'This error indicates that your module has parameters that were not used in producing loss. ' +
    'You can enable unused parameter detection by passing the keyword argument `find_unused_parameters=True` ' +
    'to `torch.nn.parallel.DistributedDataParallel`, and by \n' +
    'making sure all `forward` function outputs participate in calculating loss. \n' +
    "If you already have done the above, then the distributed data parallel module wasn't able to locate the " +
    "output tensors in the return value of your module's `forward` function. Please include the loss function " +
    'and the structure of the return value of `forward` of your module when reporting this issue (e.g. list, dict, iterable).\n' +
    `Parameter indices which did not receive grad for rank ${spec.rank}: ${spec.indices.join(' ')}\n` +
    ' In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print ' +
    'out information about which particular parameters did not receive gradient on this rank as part of this error'
  );
}
