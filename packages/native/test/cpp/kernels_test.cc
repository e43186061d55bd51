#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

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

}  // namespace kolo
