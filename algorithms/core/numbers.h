// SPDX-License-Identifier: Apache-2.0
// Numeric constants shared by the library's sources (private header).
#pragma once

#include <limits>

namespace dpadmm {

// A quiet NaN: "not computed" in figures and summaries.
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace dpadmm
