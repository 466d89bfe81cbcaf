// SPDX-License-Identifier: Apache-2.0
// The sweeps' access to algorithm parameters by name, whichever parameter struct the selected
// algorithm has (run_spec.h). A sweep sets one setting for several algorithms: a parameter the
// selected algorithm does not have is left alone on writes and reads as its neutral value
// (alpha 0, q1 = q2 = 1, gamma 0.5) - what the algorithm effectively uses.
#pragma once

#include <string>
#include <vector>

#include "dpadmm/run/choices.h"
#include "dpadmm/run/run_spec.h"

namespace dpadmm::bench {

inline double NeutralValue(const std::string& key) {
  if (key == "q1" || key == "q2") return 1.0;
  if (key == "gamma") return 0.5;
  return 0.0;
}

inline double Get(const AlgorithmSpec& a, const std::string& key) {
  const double* v = a.Field<double>(key);
  return v != nullptr ? *v : NeutralValue(key);
}

inline void Set(AlgorithmSpec& a, const std::string& key, double value) {
  if (double* v = a.Field<double>(key)) *v = value;
}

inline std::vector<double>* List(AlgorithmSpec& a, const std::string& key) {
  return a.Field<std::vector<double>>(key);
}

inline std::string Name(const AlgorithmSpec& a) { return ChoiceName(a.name()); }

}  // namespace dpadmm::bench
