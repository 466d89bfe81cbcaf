// SPDX-License-Identifier: Apache-2.0
// The portable elementary functions, inline, for the library's own hot loops (internal header:
// never installed, never included by a public header).
//
// Why the bits are the same everywhere: the C library's exp, log, log1p and pow are not specified
// to the last bit (glibc picks different code paths on CPUs with and without FMA, and musl in
// WebAssembly differs from both in the last bit for a small share of arguments), and one such bit
// in a loss value changes a Newton step and, a few ADMM rounds later, the whole trace. These are
// written only with IEEE-754 additions, multiplications and divisions (correctly rounded
// everywhere), exact power-of-two scaling by bit manipulation, and no table; the library is
// compiled with -ffp-contract=off so that no compiler fuses a multiply and an add on one platform
// only. The public, out-of-line versions are in dpadmm/core/portable_math.h (defined in
// portable_math.cpp): a consumer's build flags never reach this code, so there is no ODR hazard
// of two differently contracted copies of one inline function.
//
// Accuracy (tests/test_portable_math.cpp, against the C library): within 2 ulp of the correctly
// rounded result over the whole domain; special values (NaN, +-inf, 0, overflow, underflow,
// subnormals) as in C. Speed: about that of glibc's.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace dpadmm::math::impl {

namespace detail {

inline constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2, 32 leading bits
inline constexpr double kLn2Lo = 1.90821492927058770002e-10;  // ln 2 - kLn2Hi
inline constexpr double kInvLn2 = 1.44269504088896338700e+00;

// The bits of a double and back (Emscripten 3.1.6's libc++ has no std::bit_cast).
inline std::uint64_t ToBits(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
inline double FromBits(std::uint64_t u) {
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// 2^k for an integer k in [-1022, 1023], exactly.
inline double TwoTo(int k) { return FromBits(static_cast<std::uint64_t>(k + 1023) << 52); }

// e^r for the reduced argument |r| <= ln2 / 2, by its Taylor series to r^13 (|r|^14 / 14! <
// 5e-18 for |r| <= 0.347): e^r = 1 + r + r^2 p(r) with p of degree 11, evaluated by Estrin's
// scheme (short dependency chains). Element-wise only: a loop of it vectorises at any width
// with the same bits (solver/logistic_block.h).
[[gnu::always_inline]] inline double ExpReduced(double r) {
  const double r2 = r * r;
  const double r4 = r2 * r2;
  const double r8 = r4 * r4;
  const double p01 = 1.0 / 2.0 + r * (1.0 / 6.0);
  const double p23 = 1.0 / 24.0 + r * (1.0 / 120.0);
  const double p45 = 1.0 / 720.0 + r * (1.0 / 5040.0);
  const double p67 = 1.0 / 40320.0 + r * (1.0 / 362880.0);
  const double p89 = 1.0 / 3628800.0 + r * (1.0 / 39916800.0);
  const double pab = 1.0 / 479001600.0 + r * (1.0 / 6227020800.0);
  const double p = (p01 + r2 * p23) + r4 * (p45 + r2 * p67) + r8 * (p89 + r2 * pab);
  return 1.0 + (r + r2 * p);
}

}  // namespace detail

// e^x.
inline double Exp(double x) {
  if (x != x) return x;
  if (x > 709.782712893383973096) return std::numeric_limits<double>::infinity();
  if (x < -745.133219101941108420) return 0.0;
  // x = k ln2 + r, |r| <= ln2 / 2 (Cody and Waite: k ln2_hi is exact for |k| < 2^11).
  // k = round(x / ln2): adding and removing 1.5 * 2^52 rounds to an integer (to nearest even).
  constexpr double kShift = 6755399441055744.0;
  const double kd = (x * detail::kInvLn2 + kShift) - kShift;
  const int k = static_cast<int>(kd);
  const double r = (x - kd * detail::kLn2Hi) - kd * detail::kLn2Lo;
  const double er = detail::ExpReduced(r);
  // Scale by 2^k in at most two exact steps (one rounding only when the result is subnormal).
  if (k > 1023) return er * detail::TwoTo(1023) * 2.0;
  if (k < -1022) return er * detail::TwoTo(k + 54) * detail::TwoTo(-54);
  return er * detail::TwoTo(k);
}

// Natural logarithm.
inline double Log(double x) {
  if (x != x || x < 0.0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0.0) return -std::numeric_limits<double>::infinity();
  if (x == std::numeric_limits<double>::infinity()) return x;
  int e = 0;
  if (x < std::numeric_limits<double>::min()) {  // subnormal: scale into the normal range
    x *= detail::TwoTo(54);
    e = -54;
  }
  std::uint64_t bits = detail::ToBits(x);
  e += static_cast<int>(bits >> 52) - 1023;
  bits = (bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;  // m in [1, 2)
  double m = detail::FromBits(bits);
  if (m > 1.41421356237309504880) {  // m in [sqrt(1/2), sqrt(2)]
    m *= 0.5;
    ++e;
  }
  // log(1 + f) = 2 atanh(s), s = f / (2 + f), |s| <= 0.1716; with f - 2s = s f:
  // log(1 + f) = f - s (f - R),  R = 2 (s^2/3 + s^4/5 + ...) (s^26 term < 1e-20).
  const double f = m - 1.0;  // exact (Sterbenz)
  const double s = f / (2.0 + f);
  const double z = s * s;
  double q = 1.0 / 25.0;
  q = q * z + 1.0 / 23.0;
  q = q * z + 1.0 / 21.0;
  q = q * z + 1.0 / 19.0;
  q = q * z + 1.0 / 17.0;
  q = q * z + 1.0 / 15.0;
  q = q * z + 1.0 / 13.0;
  q = q * z + 1.0 / 11.0;
  q = q * z + 1.0 / 9.0;
  q = q * z + 1.0 / 7.0;
  q = q * z + 1.0 / 5.0;
  q = q * z + 1.0 / 3.0;
  const double R = 2.0 * z * q;
  const double log_m = f - s * (f - R);
  const double ed = static_cast<double>(e);
  return ed * detail::kLn2Hi + (ed * detail::kLn2Lo + log_m);
}

// log(1 + x), accurate for small x.
inline double Log1p(double x) {
  if (x != x || x < -1.0) return std::numeric_limits<double>::quiet_NaN();
  if (x == std::numeric_limits<double>::infinity()) return x;
  const double u = 1.0 + x;
  if (u == 1.0) return x;
  // log(u) (x / (u - 1)) cancels the rounding of u to first order (Goldberg 1991).
  return Log(u) * (x / (u - 1.0));
}

// e^x - 1, accurate for small x.
inline double Expm1(double x) {
  if (x != x) return x;
  if (x > 709.782712893383973096) return std::numeric_limits<double>::infinity();
  if (x < -40.0) return -1.0;  // e^x < 2^-57: -1 is the rounded result
  const double u = Exp(x);
  if (u == 1.0) return x;
  const double um1 = u - 1.0;
  if (um1 == -1.0) return -1.0;
  // (u - 1) x / log(u) cancels the rounding of u to first order (Kahan).
  return um1 * (x / Log(u));
}

// base^n for an integer n >= 0 by repeated squaring (about log2(n) roundings).
inline double PowInt(double base, std::int64_t n) {
  double result = 1.0;
  double square = base;
  while (n > 0) {
    if (n & 1) result *= square;
    n >>= 1;
    if (n > 0) square *= square;
  }
  return result;
}

// base^y for base > 0 (e^(y log base)); NaN for base < 0, and pow's values at 0 and inf.
inline double Pow(double base, double y) {
  if (base == 1.0 || y == 0.0) return 1.0;
  if (base != base || y != y || base < 0.0) return std::numeric_limits<double>::quiet_NaN();
  if (base == 0.0) return y > 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return Exp(y * Log(base));
}

}  // namespace dpadmm::math::impl
