// SPDX-License-Identifier: Apache-2.0
// Deterministic heterogeneous release sequences for the accountant's tests and its benchmark
// (tests/test_pld_compose.cpp, bench/bench_accountant.cpp); public headers only, so the
// benchmark also builds against older libraries.
#pragma once

#include <cstdint>
#include <vector>

#include "dpadmm/privacy/accountant.h"

namespace dpadmm::test {

// Deterministic heterogeneous sequences of every kind the project uses: pure epsilon (the
// consensus family's per-round terms, the dp-bounds release first for odd seeds), Gaussian,
// Laplace and discrete Gaussian.
inline std::vector<MechanismRelease> RandomReleaseSequence(std::uint64_t seed, int rounds) {
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
  const auto uniform = [&x] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(x >> 11) * 0x1p-53;
  };
  std::vector<MechanismRelease> out;
  if (seed % 2 == 1) out.push_back({MechanismKind::kPureEpsilon, 1.0, 1.0, 0.5});  // dp-bounds
  for (int r = 0; r < rounds; ++r) {
    const double u = uniform();
    const double v = uniform();
    if (u < 0.55) {
      out.push_back({MechanismKind::kPureEpsilon, 1.0, 1.0, 0.01 + 0.29 * v});
    } else if (u < 0.7) {
      out.push_back({MechanismKind::kGaussian, 1.0, 2.0 + 8.0 * v, 0.0});
    } else if (u < 0.85) {
      out.push_back({MechanismKind::kLaplace, 1.0, 5.0 + 35.0 * v, 0.0});
    } else {
      out.push_back({MechanismKind::kDiscreteGaussian, v < 0.5 ? 1.0 : 2.0, 2.0 + 4.0 * v, 0.0});
    }
  }
  return out;
}

}  // namespace dpadmm::test
