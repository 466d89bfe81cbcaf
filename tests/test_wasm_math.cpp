// The wasm build replaces musl's log1p and expm1 by wasm/glibc_math.h so that browser runs give
// the native build's bits. Natively, that code must agree with glibc's own log1p and expm1 to
// the last bit. ctest runs this with GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA: on CPUs with
// FMA, glibc would otherwise use its FMA variants (which wasm, without FMA, cannot match).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "../wasm/glibc_math.h"

namespace {

using dpadmm::wasm_math::Expm1;
using dpadmm::wasm_math::Log1p;

std::uint64_t Bits(double v) { return std::bit_cast<std::uint64_t>(v); }

TEST(WasmMath, Log1pAndExpm1EqualGlibcBitForBit) {
  std::mt19937_64 rng(20261122);
  std::uniform_real_distribution<double> unit(-1.0, 1.0), wide(-50.0, 50.0), exponent(-40.0, 5.0);
  std::int64_t log1p_differences = 0, expm1_differences = 0;
  for (int i = 0; i < 2000000; ++i) {
    const double xs[4] = {unit(rng), wide(rng), std::exp(exponent(rng)),
                          -0.999 * std::exp(exponent(rng))};
    for (double x : xs) {
      log1p_differences += Bits(Log1p(x)) != Bits(std::log1p(x));
      expm1_differences += Bits(Expm1(x)) != Bits(std::expm1(x));
    }
  }
  EXPECT_EQ(log1p_differences, 0);
  EXPECT_EQ(expm1_differences, 0);
}

TEST(WasmMath, SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  for (double x : {0.0, -0.0, 1e-300, -1e-300, 1e-20, 1e308, inf}) {
    EXPECT_EQ(Bits(Log1p(x)), Bits(std::log1p(x))) << x;
  }
  EXPECT_EQ(Log1p(-1.0), -inf);
  EXPECT_TRUE(std::isnan(Log1p(-2.0)));
  for (double x : {0.0, -0.0, 1e-300, 1e-20, 710.0, -710.0, 700.0, -inf, inf}) {
    EXPECT_EQ(Bits(Expm1(x)), Bits(std::expm1(x))) << x;
  }
}

}  // namespace
