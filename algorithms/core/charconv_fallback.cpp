// SPDX-License-Identifier: Apache-2.0
// Portable shortest round-trip formatting and parsing of doubles (see charconv_compat.h).
#include <cerrno>
#include <cmath>
#include <cstdint>
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

// strtod(buf) for a decimal [-]d.ddde(+|-)XX of at most 17 digits. When the decimal is
// m * 10^k with m <= 2^53 and |k| <= 22, m and 10^|k| are exact doubles, and one correctly
// rounded product or quotient is the correctly rounded value that strtod returns (without
// strtod's cost where long double is emulated in software, as in wasm). Otherwise strtod.
double ReadBack(const char* buf) {
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char* p = buf;
  const bool negative = *p == '-';
  if (negative) ++p;
  std::uint64_t m = 0;
  int digits = 0;
  for (; *p != 'e'; ++p) {
    if (*p == '.') continue;
    m = 10 * m + static_cast<std::uint64_t>(*p - '0');
    ++digits;
  }
  const int k = std::atoi(p + 1) - (digits - 1);
  if (m > (std::uint64_t{1} << 53) || k < -22 || k > 22) return std::strtod(buf, nullptr);
  const double x = static_cast<double>(m);
  const double r = k >= 0 ? x * kPow10[k] : x / kPow10[-k];
  return negative ? -r : r;
}

// Writes the correctly rounded `digits`-significant-digit decimal of value to buf (printf's
// %e form) and says whether it reads back to value.
bool RoundTrips(double value, int digits, char (&buf)[40]) {
  std::snprintf(buf, sizeof(buf), "%.*e", digits - 1, value);
  return ReadBack(buf) == value;
}

// buf holds a decimal [-]d.ddde(+|-)XX: replaces it by the next decimal of as many digits
// away from zero and says whether that one reads back to value.
bool NextAwayRoundTrips(double value, char (&buf)[40]) {
  char* const e = std::strchr(buf, 'e');
  char* const first = buf + (buf[0] == '-' ? 1 : 0);
  bool carry = true;
  for (char* p = e; carry && p > first;) {
    --p;
    if (*p == '.') continue;
    if (*p == '9') {
      *p = '0';
    } else {
      ++*p;
      carry = false;
    }
  }
  if (carry) {  // 9.99..9eN became 0.00..0eN: it is 1.00..0e(N+1)
    *first = '1';
    const int exponent = std::atoi(e + 1) + 1;
    std::snprintf(e, static_cast<std::size_t>(buf + sizeof(buf) - e), "e%c%02d",
                  exponent < 0 ? '-' : '+', std::abs(exponent));
  }
  return ReadBack(buf) == value;
}

// Writes to buf the shortest decimal that reads back to value (1 to 17 significant digits; the
// closest one among the shortest). The decimals that read back to value fill an interval
// around it. The interval is symmetric unless value is a power of two, whose lower neighbour
// is twice as close as its upper one.
// - Symmetric: the correctly rounded P-digit decimal (printf rounds correctly) is the closest
//   P-digit one, so it reads back if any P-digit decimal does. Reading back is also monotone
//   in P: a P-digit decimal is a (P+1)-digit one too, so the correctly rounded (P+1)-digit
//   decimal is no farther from value (on a tie with the interval's edge, both edges round to
//   value's even mantissa alike). A binary search finds the fewest digits in at most five
//   trials (a printf and a ReadBack each: printf is slow where long double is emulated in
//   software, as in wasm).
// - A power of two: the scan from one digit. When the correctly rounded P-digit decimal lies
//   below value outside the narrow lower half, the next P-digit decimal above may still lie
//   inside the wide upper half, and it is then the only P-digit decimal that reads back.
void ShortestDecimal(double value, char (&buf)[40]) {
  int exponent = 0;
  if (std::frexp(std::fabs(value), &exponent) == 0.5) {
    for (int digits = 1; digits < 17; ++digits) {
      if (RoundTrips(value, digits, buf)) return;
      if (std::fabs(ReadBack(buf)) < std::fabs(value) && NextAwayRoundTrips(value, buf)) {
        return;
      }
    }
    RoundTrips(value, 17, buf);
    return;
  }
  int low = 1, high = 17;  // 17 digits always read back; the answer is in [low, high]
  bool buf_holds_high = false;
  while (low < high) {
    const int mid = (low + high) / 2;
    buf_holds_high = RoundTrips(value, mid, buf);
    if (buf_holds_high) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  if (!buf_holds_high) RoundTrips(value, high, buf);
}

}  // namespace

std::to_chars_result ToCharsShortest(char* first, char* last, double value) {
  if (std::isnan(value)) return Copy(first, last, std::signbit(value) ? "-nan" : "nan");
  if (std::isinf(value)) return Copy(first, last, value < 0 ? "-inf" : "inf");
  if (value == 0.0) return Copy(first, last, std::signbit(value) ? "-0" : "0");
  char buf[40];
  ShortestDecimal(value, buf);
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
