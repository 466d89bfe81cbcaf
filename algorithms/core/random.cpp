// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/core/random.h"

#include <cmath>

#include <Random123/philox.h>

#include "core/portable_math_impl.h"

namespace dpadmm {
namespace {
using Philox = r123::Philox4x64;
}  // namespace

Stream::Stream(std::uint64_t seed, std::uint64_t node, std::uint64_t round, Purpose purpose)
    : key_{seed, static_cast<std::uint64_t>(purpose)},
      counter_{node, round, 0, 0},
      buffer_{0, 0, 0, 0} {}

void Stream::Refill() {
  const Philox::ctr_type ctr = {{counter_[0], counter_[1], counter_[2], counter_[3]}};
  const Philox::key_type key = {{key_[0], key_[1]}};
  const Philox::ctr_type out = Philox()(ctr, key);
  for (int k = 0; k < 4; ++k) buffer_[k] = out.v[k];
  ++counter_[3];
  if (counter_[3] == 0) ++counter_[2];
  next_ = 0;
}

std::uint64_t Stream::NextU64() {
  if (next_ == 4) Refill();
  return buffer_[next_++];
}

double Stream::Uniform() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }

double Stream::UniformOpen() { return (static_cast<double>(NextU64() >> 12) + 0.5) * 0x1.0p-52; }

std::uint64_t Stream::UniformInt(std::uint64_t n) {
  // Rejection sampling on the top of the range removes modulo bias.
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
  std::uint64_t r;
  do {
    r = NextU64();
  } while (r >= limit);
  return r % n;
}

double Stream::Normal() {
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return spare_normal_;
  }
  double u, v, s;
  do {
    u = 2.0 * Uniform() - 1.0;
    v = 2.0 * Uniform() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double m = std::sqrt(-2.0 * math::impl::Log(s) / s);
  spare_normal_ = v * m;
  has_spare_normal_ = true;
  return u * m;
}

double Stream::Gamma(double shape) {
  if (shape < 1.0) {
    // Gamma(a) = Gamma(a + 1) * U^(1/a).
    const double g = Gamma(shape + 1.0);
    return g * math::impl::Pow(UniformOpen(), 1.0 / shape);
  }
  // Marsaglia and Tsang (2000).
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = Normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = UniformOpen();
    if (u < 1.0 - 0.0331 * (x * x) * (x * x)) return d * v;
    if (math::impl::Log(u) < 0.5 * x * x + d * (1.0 - v + math::impl::Log(v))) return d * v;
  }
}

}  // namespace dpadmm
