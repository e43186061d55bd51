// Element-wise helpers the engine and its transports run: reductions, scaling by a factor
// (integers truncate toward zero, as Horovod's C casts do) and float16 <-> float32 conversion,
// since float16 tensors are reduced in float32.
#pragma once

#include <cstdint>

#include "engine/common.h"

namespace kolo {

// out[i] = a[i] op b[i]; `out` may be `a` or `b`. `op` is never average, and float16 never
// arrives here (the engine reduces it in float32). Integer sums and products wrap.
void ReduceBuffers(void* out, const void* a, const void* b, int64_t count, DataType dtype,
                   ReduceOp op);
void ScaleBuffer(void* data, int64_t count, DataType dtype, double factor);
float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);
void HalfToFloatBuffer(const uint16_t* in, float* out, int64_t count);
void FloatToHalfBuffer(const float* in, uint16_t* out, int64_t count);

}  // namespace kolo
