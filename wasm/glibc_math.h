// log1p and expm1 for the wasm build, computed exactly as glibc's generic (non-FMA) versions
// do, so that wasm and native Linux x86-64 builds agree to the last bit.
//
// Both are the classic fdlibm algorithms; glibc evaluates their polynomials in a split
// (Estrin-like) order, and Emscripten's musl uses other derivatives, which differ from glibc in
// the last bit for about 0.15 % (log1p) and 0.02 % (expm1) of arguments. The logistic loss uses
// log1p; the privacy accounting uses both. tests/test_wasm_math.cpp checks them against the
// native glibc on 8 million arguments each (0 differences with glibc 2.36). exp, log and pow already agree between musl and glibc's
// generic code. (glibc picks FMA variants on CPUs with FMA; native runs compared bit for bit
// with wasm select the generic ones with GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA.)
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace dpadmm::wasm_math {
namespace detail {

inline std::int32_t HighWord(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return static_cast<std::int32_t>(bits >> 32);
}

inline double WithHighWord(double x, std::uint32_t high) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits = (bits & 0xffffffffULL) | (static_cast<std::uint64_t>(high) << 32);
  std::memcpy(&x, &bits, sizeof bits);
  return x;
}

inline double FromWords(std::uint32_t high, std::uint32_t low) {
  const std::uint64_t bits = (static_cast<std::uint64_t>(high) << 32) | low;
  double x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 0x3fe62e42 fee00000
constexpr double kLn2Lo = 1.90821492927058770002e-10;  // 0x3dea39ef 35793c76
constexpr double kTwo54 = 1.80143985094819840000e+16;

}  // namespace detail

// log(1 + x): x = 2^k (1 + f) - 1 with sqrt(2)/2 < 1 + f < sqrt(2), c corrects the rounding of
// 1 + x, and log(1 + f) = f - hfsq + s (hfsq + R(z)) with s = f / (2 + f), z = s^2.
inline double Log1p(double x) {
  using namespace detail;
  constexpr double Lp1 = 6.666666666666735130e-01, Lp2 = 3.999999999940941908e-01,
                   Lp3 = 2.857142874366239149e-01, Lp4 = 2.222219843214978396e-01,
                   Lp5 = 1.818357216161805012e-01, Lp6 = 1.531383769920937332e-01,
                   Lp7 = 1.479819860511658591e-01;
  const std::int32_t hx = HighWord(x);
  const std::int32_t ax = hx & 0x7fffffff;
  double f = 0.0, c = 0.0, u;
  std::int32_t k = 1, hu = 0;
  if (hx < 0x3FDA827A) {                              // x < 0.41422
    if (ax >= 0x3ff00000) {                           // x <= -1
      return x == -1.0 ? -kTwo54 / 0.0 : (x - x) / (x - x);
    }
    if (ax < 0x3e200000) {                            // |x| < 2^-29
      return ax < 0x3c900000 ? x : x - x * x * 0.5;
    }
    if (hx > 0 || hx <= static_cast<std::int32_t>(0xbfd2bec4)) {  // -0.2929 < x < 0.41422
      k = 0;
      f = x;
      hu = 1;
    }
  }
  if (hx >= 0x7ff00000) return x + x;
  if (k != 0) {
    if (hx < 0x43400000) {
      u = 1.0 + x;
      hu = HighWord(u);
      k = (hu >> 20) - 1023;
      c = k > 0 ? 1.0 - (u - x) : x - (u - 1.0);
      c /= u;
    } else {
      u = x;
      hu = HighWord(u);
      k = (hu >> 20) - 1023;
      c = 0.0;
    }
    hu &= 0x000fffff;
    if (hu < 0x6a09e) {
      u = WithHighWord(u, static_cast<std::uint32_t>(hu | 0x3ff00000));
    } else {
      k += 1;
      u = WithHighWord(u, static_cast<std::uint32_t>(hu | 0x3fe00000));
      hu = (0x00100000 - hu) >> 2;
    }
    f = u - 1.0;
  }
  const double hfsq = 0.5 * f * f;
  if (hu == 0) {                                      // |f| < 2^-20
    if (f == 0.0) return k == 0 ? 0.0 : k * kLn2Hi + (c + k * kLn2Lo);
    const double R = hfsq * (1.0 - 0.66666666666666666 * f);
    return k == 0 ? f - R : k * kLn2Hi - ((R - (k * kLn2Lo + c)) - f);
  }
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double R1 = z * Lp1, z2 = z * z, R2 = Lp2 + z * Lp3, z4 = z2 * z2, R3 = Lp4 + z * Lp5,
               z6 = z4 * z2, R4 = Lp6 + z * Lp7;
  const double R = R1 + z2 * R2 + z4 * R3 + z6 * R4;
  if (k == 0) return f - (hfsq - s * (hfsq + R));
  return k * kLn2Hi - ((hfsq - (s * (hfsq + R) + (k * kLn2Lo + c))) - f);
}

// exp(x) - 1: x = k ln2 + r, expm1(r) from a rational approximation in r^2/2, then scaled.
inline double Expm1(double x) {
  using namespace detail;
  constexpr double kHuge = 1.0e+300, kTiny = 1.0e-300;
  constexpr double kOverflow = 7.09782712893383973096e+02;
  constexpr double kInvLn2 = 1.44269504088896338700e+00;
  constexpr double Q1 = -3.33333333333331316428e-02, Q2 = 1.58730158725481460165e-03,
                   Q3 = -7.93650757867487942473e-05, Q4 = 4.00821782732936239552e-06,
                   Q5 = -2.01099218183624371326e-07;
  std::uint32_t hx = static_cast<std::uint32_t>(HighWord(x));
  const std::uint32_t negative = hx & 0x80000000u;
  hx &= 0x7fffffffu;
  if (hx >= 0x4043687A) {                             // |x| >= 56 ln2
    if (hx >= 0x40862E42) {                           // |x| >= 709.78
      if (hx >= 0x7ff00000) {
        if (std::isnan(x)) return x + x;
        return negative == 0 ? x : -1.0;
      }
      if (x > kOverflow) return kHuge * kHuge;
    }
    if (negative != 0 && x + kTiny < 0.0) return kTiny - 1.0;
  }
  double c = 0.0, t;
  std::int32_t k;
  if (hx > 0x3fd62e42) {                              // |x| > 0.5 ln2
    double hi, lo;
    if (hx < 0x3FF0A2B2) {                            // |x| < 1.5 ln2
      if (negative == 0) {
        hi = x - kLn2Hi;
        lo = kLn2Lo;
        k = 1;
      } else {
        hi = x + kLn2Hi;
        lo = -kLn2Lo;
        k = -1;
      }
    } else {
      k = static_cast<std::int32_t>(kInvLn2 * x + (negative == 0 ? 0.5 : -0.5));
      t = k;
      hi = x - t * kLn2Hi;
      lo = t * kLn2Lo;
    }
    x = hi - lo;
    c = (hi - x) - lo;
  } else if (hx < 0x3c900000) {                       // |x| < 2^-54
    return x;
  } else {
    k = 0;
  }
  const double hfx = 0.5 * x;
  const double hxs = x * hfx;
  const double R1 = 1.0 + hxs * Q1, h2 = hxs * hxs, R2 = Q2 + hxs * Q3, h4 = h2 * h2,
               R3 = Q4 + hxs * Q5;
  const double r1 = R1 + h2 * R2 + h4 * R3;
  t = 3.0 - r1 * hfx;
  double e = hxs * ((r1 - t) / (6.0 - x * t));
  if (k == 0) return x - (x * e - hxs);
  const double twopk = FromWords(0x3ff00000u + (static_cast<std::uint32_t>(k) << 20), 0);
  e = (x * (e - c) - c);
  e -= hxs;
  if (k == -1) return 0.5 * (x - e) - 0.5;
  if (k == 1) return x < -0.25 ? -2.0 * (e - (x + 0.5)) : 1.0 + 2.0 * (x - e);
  double y;
  if (k <= -2 || k > 56) {
    y = 1.0 - (e - x);
    y = k == 1024 ? y * 2.0 * 0x1p1023 : y * twopk;
    return y - 1.0;
  }
  if (k < 20) {
    t = FromWords(0x3ff00000u - (0x200000u >> k), 0);  // 1 - 2^-k
    y = (t - (e - x)) * twopk;
  } else {
    t = FromWords(static_cast<std::uint32_t>((0x3ff - k) << 20), 0);  // 2^-k
    y = ((x - (e + t)) + 1.0) * twopk;
  }
  return y;
}

}  // namespace dpadmm::wasm_math
