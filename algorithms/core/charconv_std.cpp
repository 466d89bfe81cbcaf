// SPDX-License-Identifier: Apache-2.0
// The standard library's floating-point charconv (see charconv_compat.h).
#include "core/charconv_compat.h"

namespace dpadmm::detail {

std::to_chars_result ToCharsShortest(char* first, char* last, double value) {
  return std::to_chars(first, last, value);
}

std::from_chars_result FromCharsDouble(const char* first, const char* last, double& value) {
  return std::from_chars(first, last, value);
}

}  // namespace dpadmm::detail
