/** One parameter as the bucketing sees it. */
export interface BucketParam {
  /** Position in registration order (torch's parameter index). */
  readonly index: number;
  /** The gradient's size in bytes. */
  readonly bytes: number;
  /** The gradient's dtype; a bucket holds one dtype. */
  readonly dtype: string;
}

/**
 * torch's first-bucket cap, `dist._DEFAULT_FIRST_BUCKET_BYTES` (1 MiB): a small first bucket
 * starts communication early.
 */
export const firstBucketBytes = 1024 * 1024;

/**
 * Groups parameters into gradient buckets as torch's `compute_bucket_assignment_by_size` does
 * on DDP's rebuilt (gradient-ready) order: parameters in **reverse registration order** (the
 * order backward produces gradients), one open bucket per dtype, closed as soon as its size
 * reaches its limit — 1 MiB for the first bucket of a dtype, `capBytes` after that — and the
 * remaining open buckets last (in the order their dtype first appeared). Returns parameter indices
 * per bucket, in reduction order.
 *
 * @example
 * ```ts
 * assignBuckets([{ index: 0, bytes: 8, dtype: 'float32' }, { index: 1, bytes: 4, dtype: 'float32' }], { capBytes: 25 << 20 });
 * // [[1, 0]]
 * ```
 */
export function assignBuckets(params: readonly BucketParam[], limits: { capBytes: number; firstBytes?: number }): number[][] {
  const first = limits.firstBytes ?? firstBucketBytes;
  const open = new Map<string, { indices: number[]; bytes: number; closed: number }>();
  const result: number[][] = [];
  for (const p of [...params].reverse()) {
    const bucket = open.get(p.dtype) ?? { indices: [], bytes: 0, closed: 0 };
    open.set(p.dtype, bucket);
    bucket.indices.push(p.index);
    bucket.bytes += p.bytes;
    if (bucket.bytes >= (bucket.closed === 0 ? first : limits.capBytes)) {
      result.push(bucket.indices);
      open.set(p.dtype, { indices: [], bytes: 0, closed: bucket.closed + 1 });
    }
  }
  for (const bucket of open.values()) if (bucket.indices.length > 0) result.push(bucket.indices);
  return result;
}
