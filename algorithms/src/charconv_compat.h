// Shortest round-trip double <-> text, as std::to_chars / std::from_chars do for doubles.
// Some standard libraries (Emscripten 3.1.6's libc++) lack the floating-point overloads, so
// CMake compiles one of two definitions of these functions: charconv_std.cpp (the standard
// overloads) or charconv_use_fallback.cpp (the portable versions below, which produce the same
// text and the same values; tests/test_charconv_compat.cpp checks that natively).
#pragma once

#include <charconv>

namespace dpadmm::detail {

// std::to_chars(first, last, value): the shortest text that reads back to value, fixed or
// scientific notation, whichever is shorter (fixed on a tie).
std::to_chars_result ToCharsShortest(char* first, char* last, double value);
// std::from_chars(first, last, value) with the general format.
std::from_chars_result FromCharsDouble(const char* first, const char* last, double& value);

namespace fallback {
// The same contracts, built on snprintf/strtod (correctly rounded in glibc and musl).
std::to_chars_result ToCharsShortest(char* first, char* last, double value);
std::from_chars_result FromCharsDouble(const char* first, const char* last, double& value);
}  // namespace fallback

}  // namespace dpadmm::detail
