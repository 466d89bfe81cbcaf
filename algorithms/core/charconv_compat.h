// SPDX-License-Identifier: Apache-2.0
// Shortest round-trip double <-> text, as std::to_chars / std::from_chars do for doubles.
// Some standard libraries (Emscripten 3.1.6's libc++) lack the floating-point overloads, so
// CMake compiles one of two definitions of these functions: charconv_std.cpp (the standard
// overloads) or charconv_use_fallback.cpp (the portable versions below, which produce the same
// text and the same values; tests/test_charconv_compat.cpp checks that natively).
#pragma once

#include <charconv>
#include <cmath>
#include <string>

namespace dpadmm::detail {

// std::to_chars(first, last, value): the shortest text that reads back to value, fixed or
// scientific notation, whichever is shorter (fixed on a tie).
std::to_chars_result ToCharsShortest(char* first, char* last, double value);
// std::from_chars(first, last, value) with the general format.
std::from_chars_result FromCharsDouble(const char* first, const char* last, double& value);

// Appends the shortest text that reads back to the identical double, or "nan", "inf", "-inf":
// the number format of every CSV trace (consensus and sharing).
inline void AppendShortest(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "nan";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "inf" : "-inf";
    return;
  }
  char buf[64];
  const auto r = ToCharsShortest(buf, buf + sizeof(buf), v);
  out.append(buf, r.ptr);
}

namespace fallback {
// The same contracts, built on snprintf/strtod (correctly rounded in glibc and musl).
std::to_chars_result ToCharsShortest(char* first, char* last, double value);
std::from_chars_result FromCharsDouble(const char* first, const char* last, double& value);
}  // namespace fallback

}  // namespace dpadmm::detail
