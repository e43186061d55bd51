#include "engine/kernels.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace kolo {
namespace {

#if defined(__x86_64__)
// Four 32-byte loads, then four stores, per step; the tail (under 128 bytes) goes to memcpy,
// which moves small sizes with vector registers, not `rep movsb`. `kStream`: the stores bypass
// the cache (non-temporal), from the first 32-byte boundary of `dst` (the head goes to memcpy
// too), and a fence orders them before whatever this thread stores next (a barrier's arrival).
template <bool kStream>
__attribute__((target("avx2"))) void MoveAvx2(char* dst, const char* src, size_t bytes) {
  size_t i = 0;
  if constexpr (kStream) {
    i = std::min(bytes, (32 - (reinterpret_cast<uintptr_t>(dst) & 31)) & 31);
    if (i > 0) std::memcpy(dst, src, i);
  }
  for (; i + 128 <= bytes; i += 128) {
    __m256i v[4];
    for (int k = 0; k < 4; ++k) v[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 32 * k));
    for (int k = 0; k < 4; ++k) {
      auto* to = reinterpret_cast<__m256i*>(dst + i + 32 * k);
      if constexpr (kStream) {
        _mm256_stream_si256(to, v[k]);
      } else {
        _mm256_storeu_si256(to, v[k]);
      }
    }
  }
  if (i < bytes) std::memcpy(dst + i, src + i, bytes - i);
  if constexpr (kStream) _mm_sfence();
}

// __builtin_cpu_init first: this runs as a static initializer, possibly before libgcc's own.
const bool kHasAvx2 = (__builtin_cpu_init(), __builtin_cpu_supports("avx2"));
#endif

template <typename T>
void Scale(T* data, int64_t count, double factor) {
  for (int64_t i = 0; i < count; ++i) data[i] = static_cast<T>(static_cast<double>(data[i]) * factor);
}

template <typename T, typename Fn>
void Combine(void* out, const void* a, const void* b, int64_t count, Fn fn) {
  T* o = static_cast<T*>(out);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  for (int64_t i = 0; i < count; ++i) o[i] = fn(x[i], y[i]);
}

// Integer arithmetic goes through the unsigned type, where overflow wraps by definition.
template <typename T>
T WrapAdd(T x, T y) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(x) + static_cast<U>(y)));
}

template <typename T>
T WrapMul(T x, T y) {
  using U = std::make_unsigned_t<T>;
  using Wide = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
  return static_cast<T>(static_cast<U>(static_cast<Wide>(static_cast<U>(x)) * static_cast<Wide>(static_cast<U>(y))));
}

template <typename T>
void Reduce(void* out, const void* a, const void* b, int64_t count, ReduceOp op) {
  switch (op) {
    case ReduceOp::kMin:
      Combine<T>(out, a, b, count, [](T x, T y) { return y < x ? y : x; });
      break;
    case ReduceOp::kMax:
      Combine<T>(out, a, b, count, [](T x, T y) { return x < y ? y : x; });
      break;
    case ReduceOp::kProduct:
      if constexpr (std::is_integral_v<T>) {
        Combine<T>(out, a, b, count, [](T x, T y) { return WrapMul(x, y); });
      } else {
        Combine<T>(out, a, b, count, [](T x, T y) { return x * y; });
      }
      break;
    default:
      if constexpr (std::is_integral_v<T>) {
        Combine<T>(out, a, b, count, [](T x, T y) { return WrapAdd(x, y); });
      } else {
        Combine<T>(out, a, b, count, [](T x, T y) { return x + y; });
      }
      break;
  }
}

}  // namespace

void CopyBytes(void* dst, const void* src, size_t bytes) {
#if defined(__x86_64__)
  // Below 1 KiB glibc does not use `rep movsb` and the call is as fast.
  if (kHasAvx2 && bytes >= 1024) {
    MoveAvx2<false>(static_cast<char*>(dst), static_cast<const char*>(src), bytes);
    return;
  }
#endif
  std::memcpy(dst, src, bytes);
}

void StreamBytes(void* dst, const void* src, size_t bytes) {
#if defined(__x86_64__)
  if (kHasAvx2 && bytes >= 1024) {
    MoveAvx2<true>(static_cast<char*>(dst), static_cast<const char*>(src), bytes);
    return;
  }
#endif
  CopyBytes(dst, src, bytes);
}

// ReduceBuffers and ScaleBuffer are built twice, for AVX2 and for the baseline, and picked once
// at load time (an ifunc), so their loops vectorise at 32 bytes a step where the CPU allows.
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("avx2", "default"), flatten))
#endif
void ReduceBuffers(void* out, const void* a, const void* b, int64_t count, DataType dtype,
                   ReduceOp op) {
  switch (dtype) {
    case DataType::kFloat32: Reduce<float>(out, a, b, count, op); break;
    case DataType::kFloat64: Reduce<double>(out, a, b, count, op); break;
    case DataType::kInt32: Reduce<int32_t>(out, a, b, count, op); break;
    case DataType::kInt64: Reduce<int64_t>(out, a, b, count, op); break;
    case DataType::kUint8: Reduce<uint8_t>(out, a, b, count, op); break;
    case DataType::kInt8: Reduce<int8_t>(out, a, b, count, op); break;
    case DataType::kFloat16:
      throw std::logic_error("float16 must be reduced in float32 by the engine");
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("avx2", "default"), flatten))
#endif
void ScaleBuffer(void* data, int64_t count, DataType dtype, double factor) {
  if (factor == 1.0) return;
  switch (dtype) {
    case DataType::kFloat32: Scale(static_cast<float*>(data), count, factor); break;
    case DataType::kFloat64: Scale(static_cast<double*>(data), count, factor); break;
    case DataType::kInt32: Scale(static_cast<int32_t*>(data), count, factor); break;
    case DataType::kInt64: Scale(static_cast<int64_t*>(data), count, factor); break;
    case DataType::kUint8: Scale(static_cast<uint8_t*>(data), count, factor); break;
    case DataType::kInt8: Scale(static_cast<int8_t*>(data), count, factor); break;
    case DataType::kFloat16: {
      auto* h = static_cast<uint16_t*>(data);
      for (int64_t i = 0; i < count; ++i) {
        h[i] = FloatToHalf(static_cast<float>(HalfToFloat(h[i]) * factor));
      }
      break;
    }
  }
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      exp = 127 - 15 + 1;
      while ((mant & 0x400) == 0) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3ff;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000 | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

uint16_t FloatToHalf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  uint32_t exp = (bits >> 23) & 0xff;
  uint32_t mant = bits & 0x7fffff;
  if (exp == 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);  // inf / nan
  int32_t e = static_cast<int32_t>(exp) - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;  // overflow to inf
  if (e <= 0) {
    if (e < -10) return sign;  // underflows to zero
    mant |= 0x800000;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return sign | static_cast<uint16_t>(half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;  // round to nearest even
  return sign | static_cast<uint16_t>(half);
}

void HalfToFloatBuffer(const uint16_t* in, float* out, int64_t count) {
  for (int64_t i = 0; i < count; ++i) out[i] = HalfToFloat(in[i]);
}

void FloatToHalfBuffer(const float* in, uint16_t* out, int64_t count) {
  for (int64_t i = 0; i < count; ++i) out[i] = FloatToHalf(in[i]);
}

}  // namespace kolo
