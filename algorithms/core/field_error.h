// SPDX-License-Identifier: Apache-2.0
// The one way a validator says that a field or an argument is out of its range (internal header):
//   Bad("algorithm.eta", "> 0 and finite", -1.0)  throws  "algorithm.eta must be > 0 and finite,
//   got -1";
//   Require(sigma > 0, "GaussianPld", "sigma must be > 0", sigma)  throws  "GaussianPld: sigma
//   must be > 0, got 0" when the condition fails.
#pragma once

#include <sstream>
#include <string>

#include "dpadmm/core/error.h"

namespace dpadmm::detail {

template <class T>
[[noreturn]] void Bad(const std::string& field, const std::string& rule, const T& got) {
  std::ostringstream os;
  os << field << " must be " << rule << ", got " << got;
  throw InputError(os.str());
}

inline void Require(bool ok, const char* fn, const char* what, double got) {
  if (ok) return;
  std::ostringstream os;
  os << fn << ": " << what << ", got " << got;
  throw InputError(os.str());
}

}  // namespace dpadmm::detail
