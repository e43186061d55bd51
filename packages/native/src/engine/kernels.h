// Element-wise helpers the engine and its transports run: reductions, scaling by a factor
// (integers truncate toward zero, as Horovod's C casts do) and float16 <-> float32 conversion,
// since float16 tensors are reduced in float32.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/common.h"

namespace kolo {

// memcpy for the engine's and transports' bulk copies. glibc copies 4 KiB and up with
// `rep movsb` on CPUs that advertise fast string moves, and on AMD EPYC that runs at under
// 2 GB/s for copies that fit in the L2 cache (measured 20x slower than vector moves at 4-64 KiB);
// this uses 32-byte vector moves where the CPU has AVX2 and memcpy elsewhere.
void CopyBytes(void* dst, const void* src, size_t bytes);
// CopyBytes for a destination nobody will read soon, in a copy larger than the caches: the
// stores bypass the cache where the CPU has AVX2 (no read of each line before its write, half
// the memory traffic of a cached copy), and CopyBytes elsewhere. Ordered before this thread's
// later stores.
void StreamBytes(void* dst, const void* src, size_t bytes);

// out[i] = a[i] op b[i]; `out` may be `a` or `b`. `op` is never average, and float16 never
// arrives here (the engine reduces it in float32). Integer sums and products wrap.
void ReduceBuffers(void* out, const void* a, const void* b, int64_t count, DataType dtype,
                   ReduceOp op);
void ScaleBuffer(void* data, int64_t count, DataType dtype, double factor);
// Asks for the `bytes` at `p` in the core's L2, a line at a time, without waiting: for a peer's
// freshly written bytes about to be read (a few KiB), whose misses then overlap instead of
// waiting for the stream prefetcher to ramp up (5–6% of a 16–32 KiB allreduce on 2 ranks).
inline void PrefetchBytes(const void* p, size_t bytes) {
  const char* at = static_cast<const char*>(p);
  for (size_t b = 0; b < bytes; b += 64) __builtin_prefetch(at + b, 0, 2);
}

// dst = every rank's contribution `of(r)` (n elements, `size` >= 2 ranks) reduced in rank order,
// so the result is bitwise identical whichever rank computes it. `dst` may be a contribution.
template <typename Contribution>
void ReduceInRankOrder(void* dst, int size, Contribution of, int64_t n, DataType dtype, ReduceOp op) {
  ReduceBuffers(dst, of(0), of(1), n, dtype, op);
  for (int r = 2; r < size; ++r) ReduceBuffers(dst, dst, of(r), n, dtype, op);
}
float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);
void HalfToFloatBuffer(const uint16_t* in, float* out, int64_t count);
void FloatToHalfBuffer(const float* in, uint16_t* out, int64_t count);

}  // namespace kolo
