// SPDX-License-Identifier: Apache-2.0
// Portable shortest round-trip formatting and parsing of doubles (see charconv_compat.h).
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>

#include "core/charconv_compat.h"

namespace dpadmm::detail::fallback {
namespace {

std::to_chars_result Copy(char* first, char* last, const std::string& text) {
  if (static_cast<std::size_t>(last - first) < text.size())
    return {last, std::errc::value_too_large};
  std::memcpy(first, text.data(), text.size());
  return {first + text.size(), std::errc()};
}

}  // namespace

std::to_chars_result ToCharsShortest(char* first, char* last, double value) {
  if (std::isnan(value)) return Copy(first, last, std::signbit(value) ? "-nan" : "nan");
  if (std::isinf(value)) return Copy(first, last, value < 0 ? "-inf" : "inf");
  if (value == 0.0) return Copy(first, last, std::signbit(value) ? "-0" : "0");
  // The fewest significant digits that read back exactly: printf rounds correctly, and the
  // correctly rounded P-digit decimal is the closest one, so it round-trips if any does.
  char buf[40];
  int digits = 1;
  for (; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof(buf), "%.*e", digits - 1, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  // buf = [-]d[.ddd]e(+|-)XX: split into the digit string and the decimal exponent.
  const char* p = buf;
  std::string sign;
  if (*p == '-') {
    sign = "-";
    ++p;
  }
  std::string mantissa;
  for (; *p != 'e'; ++p) {
    if (*p != '.') mantissa += *p;
  }
  const int exponent = std::atoi(p + 1);
  const int n = static_cast<int>(mantissa.size());

  std::string scientific = sign + mantissa.substr(0, 1);
  if (n > 1) scientific += "." + mantissa.substr(1);
  char exp_text[8];
  std::snprintf(exp_text, sizeof(exp_text), "e%c%02d", exponent < 0 ? '-' : '+',
                std::abs(exponent));
  scientific += exp_text;

  std::string fixed = sign;
  if (exponent >= n - 1) {
    // An integer: printf's %f prints its exact digits (not the shortest digits plus zeros).
    char big[400];
    std::snprintf(big, sizeof(big), "%.0f", std::fabs(value));
    fixed += big;
  } else if (exponent >= 0) {
    fixed += mantissa.substr(0, exponent + 1) + "." + mantissa.substr(exponent + 1);
  } else {
    fixed += "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + mantissa;
  }
  return Copy(first, last, fixed.size() <= scientific.size() ? fixed : scientific);
}

std::from_chars_result FromCharsDouble(const char* first, const char* last, double& value) {
  // std::from_chars takes no leading whitespace, no '+' and (general format) no hex prefix,
  // all of which strtod would accept.
  std::string text(first, last);
  const std::size_t bad = text.find_first_of("xX");
  if (bad != std::string::npos) text.resize(bad);
  if (text.empty() || text[0] == '+' || std::isspace(static_cast<unsigned char>(text[0])) != 0) {
    return {first, std::errc::invalid_argument};
  }
  errno = 0;
  char* end = nullptr;
  const double parsed = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) return {first, std::errc::invalid_argument};
  const char* ptr = first + (end - text.c_str());
  if (errno == ERANGE && (std::isinf(parsed) || parsed == 0.0)) {
    return {ptr, std::errc::result_out_of_range};
  }
  value = parsed;
  return {ptr, std::errc()};
}

}  // namespace dpadmm::detail::fallback
