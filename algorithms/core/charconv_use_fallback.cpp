// SPDX-License-Identifier: Apache-2.0
// For standard libraries without floating-point charconv (see charconv_compat.h).
#include "core/charconv_compat.h"

namespace dpadmm::detail {

std::to_chars_result ToCharsShortest(char* first, char* last, double value) {
  return fallback::ToCharsShortest(first, last, value);
}

std::from_chars_result FromCharsDouble(const char* first, const char* last, double& value) {
  return fallback::FromCharsDouble(first, last, value);
}

}  // namespace dpadmm::detail
