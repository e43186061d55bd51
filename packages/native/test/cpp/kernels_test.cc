#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/kernels.h"

namespace kolo {

TEST(Kernels, IntegerScalingTruncatesTowardZero) {
  int32_t v[4] = {7, -7, 5, 1};
  ScaleBuffer(v, 4, DataType::kInt32, 0.5);
  EXPECT_EQ(v[0], 3);
  EXPECT_EQ(v[1], -3);
  EXPECT_EQ(v[2], 2);
  EXPECT_EQ(v[3], 0);
}

TEST(Kernels, Float64ScalingIsExact) {
  double v[2] = {3.0, -1.5};
  ScaleBuffer(v, 2, DataType::kFloat64, 2.0);
  EXPECT_EQ(v[0], 6.0);
  EXPECT_EQ(v[1], -3.0);
}

TEST(Kernels, HalfConversionKnownBitPatterns) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalf(1e6f), 0x7c00);           // overflow to +inf
  EXPECT_EQ(FloatToHalf(5.960464477539063e-8f), 0x0001);  // smallest subnormal
  EXPECT_EQ(HalfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(HalfToFloat(0x0001), 5.960464477539063e-8f);
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7e00)));
}

TEST(Kernels, HalfRoundTripsEveryFiniteValue) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    uint16_t bits = static_cast<uint16_t>(h);
    if ((bits & 0x7c00) == 0x7c00) continue;  // inf and nan
    EXPECT_EQ(FloatToHalf(HalfToFloat(bits)), bits) << "bits " << h;
  }
}

TEST(Kernels, HalfRoundsToNearestEven) {
  // 1 + 2^-11 sits halfway between 1 and the next half (1 + 2^-10): ties go to even (1).
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(FloatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
}

// CopyBytes and StreamBytes alike (StreamBytes aligns the destination to 32 bytes for its
// streamed stores, so the offsets also cover its head and tail).
TEST(Kernels, CopyBytesCopiesEveryByteAtEveryAlignmentAndLeavesTheRest) {
  for (auto copy : {CopyBytes, StreamBytes}) {
  // Sizes around the vector path's edges (1 KiB, 128-byte steps) and across a page; offsets
  // that leave source and destination unaligned to each other.
  const size_t sizes[] = {0, 1, 127, 128, 1023, 1024, 1025, 1151, 4096 + 3, (1 << 20) + 7};
  for (size_t bytes : sizes) {
    for (size_t src_off : {0, 1, 31}) {
      for (size_t dst_off : {0, 5, 32}) {
        std::vector<uint8_t> src(bytes + 64), dst(bytes + 128, 0xAB);
        for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 131 + 7);
        copy(dst.data() + dst_off, src.data() + src_off, bytes);
        size_t wrong = 0;
        for (size_t i = 0; i < bytes; ++i) wrong += dst[dst_off + i] != src[src_off + i];
        EXPECT_EQ(wrong, 0u) << (copy == CopyBytes ? "CopyBytes " : "StreamBytes ") << bytes << " bytes, offsets " << src_off << "/" << dst_off;
        size_t touched = 0;
        for (size_t i = 0; i < dst_off; ++i) touched += dst[i] != 0xAB;
        for (size_t i = dst_off + bytes; i < dst.size(); ++i) touched += dst[i] != 0xAB;
        EXPECT_EQ(touched, 0u) << (copy == CopyBytes ? "CopyBytes " : "StreamBytes ") << bytes << " bytes, offsets " << src_off << "/" << dst_off;
      }
    }
  }
  }
}

}  // namespace kolo
