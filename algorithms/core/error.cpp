// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/core/error.h"

namespace dpadmm {

void ThrowAt(const std::string& path, long long line, const std::string& message) {
  throw InputError(line > 0 ? path + ":" + std::to_string(line) + ": " + message
                            : path + ": " + message);
}

}  // namespace dpadmm
