// Element-wise helpers the engine runs around a transport call: scaling by a factor (integers
// truncate toward zero, as Horovod's C casts do) and float16 <-> float32 conversion, since
// float16 tensors are reduced in float32.
#pragma once

#include <cstdint>

#include "engine/common.h"

namespace kolo {

void ScaleBuffer(void* data, int64_t count, DataType dtype, double factor);
float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);
void HalfToFloatBuffer(const uint16_t* in, float* out, int64_t count);
void FloatToHalfBuffer(const float* in, uint16_t* out, int64_t count);

}  // namespace kolo
