export { DistributedSampler, type DistributedSamplerOptions } from './distributed-sampler.js';
