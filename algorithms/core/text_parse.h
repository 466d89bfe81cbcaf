// SPDX-License-Identifier: Apache-2.0
// Internal helpers shared by the text loaders (data, partition and edge-list files): read a
// whole file, walk its lines with their numbers, split fields and parse numbers strictly.
// Every failure throws InputError as "path:line: message" (via ThrowAt).
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "core/charconv_compat.h"
#include "dpadmm/core/error.h"

namespace dpadmm::internal {

// The whole file as one string; "path: cannot open file" if it is missing or unreadable.
inline std::string ReadWholeFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) ThrowAt(path, 0, "cannot open file (a directory)");
  std::ifstream in(path, std::ios::binary);
  if (!in) ThrowAt(path, 0, "cannot open file");
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) ThrowAt(path, 0, "cannot read file");
  std::string text(static_cast<std::size_t>(size), '\0');
  in.seekg(0, std::ios::beg);
  in.read(text.data(), size);
  if (in.gcount() != size) ThrowAt(path, 0, "cannot read file");
  return text;
}

// Walks the lines of a text; strips "\n" and "\r\n". A final line without newline counts; the
// empty string after a final newline does not.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : rest_(text) {}

  bool Next(std::string_view& line) {
    if (rest_.empty()) return false;
    const std::size_t end = rest_.find('\n');
    line = rest_.substr(0, end);
    rest_ = end == std::string_view::npos ? std::string_view() : rest_.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++number_;
    return true;
  }
  long long number() const { return number_; }

 private:
  std::string_view rest_;
  long long number_ = 0;
};

inline bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

inline std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

inline bool IsBlank(std::string_view line) { return Trim(line).empty(); }

// Splits `line` into `fields` (cleared first). delimiter ' ' means runs of spaces/tabs, with
// leading and trailing whitespace ignored; any other delimiter separates fields exactly, and
// whitespace around each field is trimmed ("a, b,c" -> "a" "b" "c"; "a,,b" has an empty field).
inline void SplitFields(std::string_view line, char delimiter,
                        std::vector<std::string_view>& fields) {
  fields.clear();
  if (delimiter == ' ') {
    std::size_t i = 0;
    while (true) {
      while (i < line.size() && IsSpace(line[i])) ++i;
      if (i == line.size()) return;
      const std::size_t start = i;
      while (i < line.size() && !IsSpace(line[i])) ++i;
      fields.push_back(line.substr(start, i - start));
    }
  }
  while (true) {
    const std::size_t end = line.find(delimiter);
    fields.push_back(Trim(line.substr(0, end)));
    if (end == std::string_view::npos) return;
    line.remove_prefix(end + 1);
  }
}

// Quotes a token for an error message, shortened if very long.
inline std::string Quote(std::string_view token) {
  constexpr std::size_t kMax = 40;
  std::string quoted(1, '\'');
  quoted.append(token.substr(0, kMax));
  quoted.append(token.size() > kMax ? "...'" : "'");
  return quoted;
}

// One optional leading '+' is accepted (std::from_chars accepts only '-').
inline std::string_view StripPlus(std::string_view token) {
  if (token.size() > 1 && token[0] == '+' && token[1] != '-' && token[1] != '+') {
    token.remove_prefix(1);
  }
  return token;
}

// A finite double occupying the whole token; `what` names the token in messages ("value").
inline double ParseFiniteDouble(std::string_view token, const std::string& path, long long line,
                                const char* what) {
  const std::string_view digits = StripPlus(token);
  double value = 0.0;
  const auto [end, ec] =
      ::dpadmm::detail::FromCharsDouble(digits.data(), digits.data() + digits.size(), value);
  if (ec == std::errc::result_out_of_range) {
    ThrowAt(path, line, std::string(what) + " " + Quote(token) + " is out of the double range");
  }
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty()) {
    ThrowAt(path, line, std::string("bad ") + what + " " + Quote(token) + " (not a number)");
  }
  if (!std::isfinite(value)) {
    ThrowAt(path, line, std::string(what) + " " + Quote(token) + " is NaN or Inf");
  }
  return value;
}

// A decimal integer occupying the whole token.
inline std::int64_t ParseInt(std::string_view token, const std::string& path, long long line,
                             const char* what) {
  const std::string_view digits = StripPlus(token);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec == std::errc::result_out_of_range) {
    ThrowAt(path, line, std::string(what) + " " + Quote(token) + " is out of range");
  }
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty()) {
    ThrowAt(path, line, std::string("bad ") + what + " " + Quote(token) + " (not an integer)");
  }
  return value;
}

}  // namespace dpadmm::internal
