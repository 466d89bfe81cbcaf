// SPDX-License-Identifier: Apache-2.0
// The one strict parser of numbers typed by a user (command-line flags; the JSON reader gets its
// numbers already typed from nlohmann and applies the same rules to their range). A number is
// the whole token, with no surrounding spaces:
//   - floating point: decimal or exponent notation ("0.5", "5e-3", "+1"), finite and inside the
//     double range. Rejected: "", " 1", "1 ", "0x10", "1abc", "inf", "nan", "1e999", "1e-400"
//     (underflow is reported rather than silently becoming 0).
//   - integers: decimal digits with an optional sign, inside the range of the field's type.
//     Rejected: "", "0x10", "010" is decimal ten (never octal), "2.5", and also "1e3": an integer
//     field takes its digits written out, so that no rounding can hide in an exponent (the JSON
//     reader likewise rejects 1e3 and 1000.0 for integer fields).
// Each function returns "" on success, else the reason in words without the field's name
// ("must be an integer, got '2.5'"); callers prefix the flag or field.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

#include "core/charconv_compat.h"

namespace dpadmm::internal {

// The token as quoted in a message, shortened if very long.
inline std::string QuoteToken(std::string_view token) {
  constexpr std::size_t kMax = 40;
  std::string quoted(1, '\'');
  quoted.append(token.substr(0, kMax));
  quoted.append(token.size() > kMax ? "...'" : "'");
  return quoted;
}

// One leading '+' is allowed (from_chars accepts only '-'); "+-1" and "++1" are not.
inline std::string_view WithoutPlus(std::string_view token) {
  if (token.size() > 1 && token[0] == '+' && token[1] != '-' && token[1] != '+') {
    token.remove_prefix(1);
  }
  return token;
}

inline std::string ParseStrictDouble(std::string_view token, double& out) {
  const std::string_view digits = WithoutPlus(token);
  if (token.empty()) return "must be a number, got an empty value";
  double value = 0.0;
  const auto [end, ec] =
      ::dpadmm::detail::FromCharsDouble(digits.data(), digits.data() + digits.size(), value);
  if (ec == std::errc::result_out_of_range) {
    return "must be a number inside the double range (about 1e-308 to 1e308), got " +
           QuoteToken(token);
  }
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty()) {
    return "must be a decimal number, got " + QuoteToken(token);
  }
  if (!std::isfinite(value)) return "must be a finite number, got " + QuoteToken(token);
  out = value;
  return "";
}

template <class T>
std::string ParseStrictInteger(std::string_view token, T& out) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  const std::string range = "[" + std::to_string(std::numeric_limits<T>::min()) + ", " +
                            std::to_string(std::numeric_limits<T>::max()) + "]";
  if (token.empty()) return "must be an integer in " + range + ", got an empty value";
  const std::string_view digits = WithoutPlus(token);
  // Parse into the widest type of the same signedness so that "-1" for an unsigned field and
  // out-of-range values get their own messages.
  using Wide = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
  Wide wide = 0;
  const bool negative_for_unsigned = std::is_unsigned_v<T> && !digits.empty() && digits[0] == '-';
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), wide);
  if (!negative_for_unsigned && ec == std::errc() && end == digits.data() + digits.size() &&
      !digits.empty()) {
    if (wide < static_cast<Wide>(std::numeric_limits<T>::min()) ||
        wide > static_cast<Wide>(std::numeric_limits<T>::max())) {
      return "must be an integer in " + range + ", got " + QuoteToken(token) + " (out of range)";
    }
    out = static_cast<T>(wide);
    return "";
  }
  if (ec == std::errc::result_out_of_range || negative_for_unsigned) {
    return "must be an integer in " + range + ", got " + QuoteToken(token) + " (out of range)";
  }
  // A number, but not an integer written out: say which rule it breaks.
  double as_double = 0.0;
  if (ParseStrictDouble(token, as_double).empty()) {
    const bool has_exponent = token.find_first_of("eE") != std::string_view::npos;
    if (has_exponent && as_double == std::floor(as_double)) {
      return "must be an integer written in digits (no exponent), got " + QuoteToken(token);
    }
    return "must be an integer in " + range + ", got " + QuoteToken(token);
  }
  return "must be an integer in " + range + ", got " + QuoteToken(token);
}

// Either kind, by the type of the field.
template <class T>
std::string ParseStrictNumber(std::string_view token, T& out) {
  if constexpr (std::is_floating_point_v<T>) {
    double value = 0.0;
    std::string error = ParseStrictDouble(token, value);
    if (error.empty()) out = static_cast<T>(value);
    return error;
  } else {
    return ParseStrictInteger(token, out);
  }
}

}  // namespace dpadmm::internal
