// SPDX-License-Identifier: Apache-2.0
// The portable double <-> text conversions (used where the standard library lacks the
// floating-point charconv overloads, e.g. the WebAssembly build) give exactly the standard's
// text and values, so traces written natively and in the browser are equal as text.
#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/charconv_compat.h"

namespace {

namespace fb = dpadmm::detail::fallback;

std::string Std(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return {buf, r.ptr};
}

std::string Fallback(double v) {
  char buf[64];
  const auto r = fb::ToCharsShortest(buf, buf + sizeof(buf), v);
  EXPECT_EQ(r.ec, std::errc());
  return {buf, r.ptr};
}

TEST(CharconvCompat, FormatsLikeStdToChars) {
  std::vector<double> values = {1.0,
                                -1.0,
                                0.1,
                                0.5,
                                1.0 / 3.0,
                                2.0 / 3.0,
                                100.0,
                                1234567.0,
                                1e15,
                                1e16,
                                1e17,
                                1e21,
                                1e22,
                                1e23,
                                123456789012345678.0,
                                std::ldexp(1.0, 70),
                                1e-5,
                                1.5e-7,
                                5e-324,
                                2.2250738585072014e-308,
                                std::numeric_limits<double>::max(),
                                0.0,
                                -0.0,
                                0.6931471805599453,
                                9007199254740993.0,
                                4.35,
                                0.3,
                                299792458.0};
  std::mt19937_64 rng(20261122);
  // Random bit patterns cover every exponent; random values in [0, 1) and small integers
  // cover what traces hold.
  for (int k = 0; k < 20000; ++k) {
    const double v = std::bit_cast<double>(rng());
    if (std::isfinite(v)) values.push_back(v);
  }
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int k = 0; k < 20000; ++k) values.push_back(unit(rng));
  for (int k = 0; k < 2000; ++k) values.push_back(std::floor(unit(rng) * 1e6) / 64.0);
  // Every power of two and its two neighbours: the one asymmetric rounding interval, which
  // the formatter's shortcut (a binary search over the digit count) must not be used for.
  for (int e = -1074; e <= 1023; ++e) {
    const double p = std::ldexp(1.0, e);
    values.push_back(p);
    values.push_back(std::nextafter(p, 0.0));
    values.push_back(std::nextafter(p, std::numeric_limits<double>::infinity()));
  }
  // Short decimals (1 to 17 digits), where the fewest digits are anywhere in the range.
  for (int digits = 1; digits <= 17; ++digits) {
    for (int k = 0; k < 200; ++k) {
      char text[40];
      std::snprintf(text, sizeof(text), "%.*e", digits - 1, std::ldexp(unit(rng), k % 40 - 20));
      values.push_back(std::strtod(text, nullptr));
    }
  }
  for (double v : values)
    ASSERT_EQ(Fallback(v), Std(v)) << "bits " << std::bit_cast<std::uint64_t>(v);
  EXPECT_EQ(Fallback(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(Fallback(-std::numeric_limits<double>::infinity()), "-inf");
}

TEST(CharconvCompat, ParsesLikeStdFromChars) {
  const std::vector<std::string> tokens = {"0",
                                           "-0",
                                           "1",
                                           "0.1",
                                           "1e5",
                                           "1E5",
                                           "-2.5e-3",
                                           "3.",
                                           ".5",
                                           "123456789012345678901234567890",
                                           "5e-324",
                                           "0.30000000000000004",
                                           "1.7976931348623157e308",
                                           "1.5abc",
                                           "inf",
                                           "-inf",
                                           "nan",
                                           "infinity"};
  for (const std::string& t : tokens) {
    double a = -7.0, b = -7.0;
    const auto ra = std::from_chars(t.data(), t.data() + t.size(), a);
    const auto rb = fb::FromCharsDouble(t.data(), t.data() + t.size(), b);
    EXPECT_EQ(ra.ec, rb.ec) << t;
    EXPECT_EQ(ra.ptr, rb.ptr) << t;
    if (!std::isnan(a)) {
      EXPECT_EQ(std::bit_cast<std::uint64_t>(a), std::bit_cast<std::uint64_t>(b)) << t;
    }
  }
  // Rejected like std::from_chars: nothing numeric at the start, '+', leading space, hex.
  for (const std::string t : {"", "abc", "+1", " 1", "e5", "-"}) {
    double a = -7.0, b = -7.0;
    const auto ra = std::from_chars(t.data(), t.data() + t.size(), a);
    const auto rb = fb::FromCharsDouble(t.data(), t.data() + t.size(), b);
    EXPECT_EQ(ra.ec, std::errc::invalid_argument) << t;
    EXPECT_EQ(rb.ec, std::errc::invalid_argument) << t;
    EXPECT_EQ(b, -7.0) << t;
  }
  for (const std::string t : {"0x10", "1e400", "-1e400"}) {
    double a = -7.0, b = -7.0;
    const auto ra = std::from_chars(t.data(), t.data() + t.size(), a);
    const auto rb = fb::FromCharsDouble(t.data(), t.data() + t.size(), b);
    EXPECT_EQ(ra.ec, rb.ec) << t;
    EXPECT_EQ(ra.ptr, rb.ptr) << t;
  }
  // Round trip of the formatter through the parser.
  std::mt19937_64 rng(7);
  for (int k = 0; k < 5000; ++k) {
    const double v = std::bit_cast<double>(rng());
    if (!std::isfinite(v)) continue;
    const std::string text = Fallback(v);
    double back = 0.0;
    ASSERT_EQ(fb::FromCharsDouble(text.data(), text.data() + text.size(), back).ec, std::errc());
    ASSERT_EQ(std::bit_cast<std::uint64_t>(back), std::bit_cast<std::uint64_t>(v)) << text;
  }
}

}  // namespace
