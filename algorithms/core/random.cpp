// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/core/random.h"

#include <cmath>

#include <Random123/philox.h>

#include "core/random_transforms.h"

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

double Stream::Uniform() { return detail::UniformOf(*this); }

double Stream::UniformOpen() { return detail::UniformOpenOf(*this); }

std::uint64_t Stream::UniformInt(std::uint64_t n) { return detail::UniformIntOf(*this, n); }

double Stream::Normal() { return detail::NormalOf(*this, has_spare_normal_, spare_normal_); }

double Stream::Gamma(double shape) {
  return detail::GammaOf(*this, shape, has_spare_normal_, spare_normal_);
}

}  // namespace dpadmm
