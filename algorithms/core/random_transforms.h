// SPDX-License-Identifier: Apache-2.0
// The transforms from uniform 64-bit words to doubles, shared by the Philox Stream (data,
// graph, partition, start) and the keyed ChaCha20 noise stream (privacy/noise_key.h), so both
// give the same numbers for the same words. Any type with NextU64() is a source.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/portable_math_impl.h"

namespace dpadmm::detail {

template <class Source>
double UniformOf(Source& s) {
  return static_cast<double>(s.NextU64() >> 11) * 0x1.0p-53;
}

template <class Source>
double UniformOpenOf(Source& s) {
  return (static_cast<double>(s.NextU64() >> 12) + 0.5) * 0x1.0p-52;
}

template <class Source>
std::uint64_t UniformIntOf(Source& s, std::uint64_t n) {
  // Rejection sampling on the top of the range removes modulo bias.
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
  std::uint64_t r;
  do {
    r = s.NextU64();
  } while (r >= limit);
  return r % n;
}

// Standard normal (Marsaglia polar method); keeps the second value in spare.
template <class Source>
double NormalOf(Source& s, bool& has_spare, double& spare) {
  if (has_spare) {
    has_spare = false;
    return spare;
  }
  double u, v, q;
  do {
    u = 2.0 * UniformOf(s) - 1.0;
    v = 2.0 * UniformOf(s) - 1.0;
    q = u * u + v * v;
  } while (q >= 1.0 || q == 0.0);
  const double m = std::sqrt(-2.0 * math::impl::Log(q) / q);
  spare = v * m;
  has_spare = true;
  return u * m;
}

// Gamma(shape, 1), shape > 0: Marsaglia and Tsang (2000); shape < 1 via Gamma(a + 1) U^(1/a).
template <class Source>
double GammaOf(Source& s, double shape, bool& has_spare, double& spare) {
  if (shape < 1.0) {
    const double g = GammaOf(s, shape + 1.0, has_spare, spare);
    return g * math::impl::Pow(UniformOpenOf(s), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = NormalOf(s, has_spare, spare);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = UniformOpenOf(s);
    if (u < 1.0 - 0.0331 * (x * x) * (x * x)) return d * v;
    if (math::impl::Log(u) < 0.5 * x * x + d * (1.0 - v + math::impl::Log(v))) return d * v;
  }
}

}  // namespace dpadmm::detail
