// SPDX-License-Identifier: Apache-2.0
// Tests' access to the selected algorithm's parameters by what they mean (noise schedule,
// penalty growth, ...), whichever struct holds them. Throws std::bad_variant_access if the
// selected algorithm has no such parameter (a test bug).
#pragma once

#include <type_traits>
#include <variant>

#include "dpadmm/run/run_spec.h"

namespace dpadmm::test {

inline NoiseSchedule& Noise(RunSpec& s) {
  NoiseSchedule* out = nullptr;
  std::visit(
      [&](auto& p) {
        if constexpr (std::is_base_of_v<NoiseSchedule, std::decay_t<decltype(p)>>) out = &p;
      },
      s.algorithm.params);
  if (out == nullptr) throw std::bad_variant_access();
  return *out;
}

// The selected struct's field `name` (a macro: the member is found by name in each struct).
#define DPADMM_TEST_FIELD(Type, name)                        \
  inline Type& name##Of(RunSpec& s) {                        \
    Type* out = nullptr;                                     \
    std::visit(                                              \
        [&](auto& p) {                                       \
          if constexpr (requires { p.name; }) out = &p.name; \
        },                                                   \
        s.algorithm.params);                                 \
    if (out == nullptr) throw std::bad_variant_access();     \
    return *out;                                             \
  }
DPADMM_TEST_FIELD(double, q1)
DPADMM_TEST_FIELD(std::vector<double>, node_q1)
DPADMM_TEST_FIELD(double, gamma)
#undef DPADMM_TEST_FIELD

inline double& Q1(RunSpec& s) { return q1Of(s); }
inline std::vector<double>& NodeQ1(RunSpec& s) { return node_q1Of(s); }
inline double& Gamma(RunSpec& s) { return gammaOf(s); }
inline PdmlParams& Pdml(RunSpec& s) { return s.algorithm.As<PdmlParams>(); }

}  // namespace dpadmm::test
