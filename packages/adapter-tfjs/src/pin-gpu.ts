import { localRank } from '@kolo/core';

/**
 * Gives this process one GPU, the one of its local rank, by setting `CUDA_VISIBLE_DEVICES`
 * (Horovod's one-process-per-GPU rule). tfjs-node-gpu takes the first visible GPU and reads the
 * variable when it loads, so call this after `init()` and before importing
 * `@tensorflow/tfjs-node-gpu`. When the variable already lists devices (e.g. `2,3`), the local
 * rank picks from that list. Returns the value set.
 *
 * @example
 * ```ts
 * await init();
 * pinGpuToLocalRank();
 * const tf = await import('@tensorflow/tfjs-node-gpu');
 * ```
 */
export function pinGpuToLocalRank(): string {
  const local = localRank();
  const listed = process.env['CUDA_VISIBLE_DEVICES']?.split(',').map((d) => d.trim()).filter((d) => d !== '');
  const device = listed !== undefined && listed.length > 0 ? listed[local % listed.length] : String(local);
  process.env['CUDA_VISIBLE_DEVICES'] = device;
  return device as string;
}
