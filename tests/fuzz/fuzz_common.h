// SPDX-License-Identifier: Apache-2.0
// Shared pieces of the libFuzzer harnesses: a private temp dir for loaders that only take paths,
// and the rule that InputError is the expected rejection while anything else is a finding.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>

#include "dpadmm/core/error.h"

namespace dpadmm::fuzz {

// A directory of this process only (mkdtemp), removed when the process exits normally. libFuzzer
// runs every input in the same process, so the files are overwritten, not accumulated.
class TempDir {
 public:
  static TempDir& Get() {
    static TempDir dir;
    return dir;
  }
  // Writes `content` to `name` inside the directory and returns the full path.
  std::string Write(const std::string& name, std::string_view content) {
    const std::string path = path_ + "/" + name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.close();
    if (!out) {
      std::fprintf(stderr, "fuzz harness: cannot write %s\n", path.c_str());
      std::abort();
    }
    return path;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }

 private:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/dpadmm-fuzz-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror("fuzz harness: mkdtemp");
      std::abort();
    }
    path_ = pattern;
  }
  std::string path_;
};

// Splits a two-file input at the first line "@@" (the separator of the seed corpus); without a
// separator the second part is empty.
inline std::pair<std::string_view, std::string_view> SplitTwo(std::string_view input) {
  constexpr std::string_view kSeparator = "\n@@\n";
  const std::size_t at = input.find(kSeparator);
  if (at == std::string_view::npos) return {input, std::string_view()};
  return {input.substr(0, at + 1), input.substr(at + kSeparator.size())};
}

// A failed property: print and abort so libFuzzer records the input as a crash.
[[noreturn]] inline void Fail(const char* what) {
  std::fprintf(stderr, "fuzz harness: property violated: %s\n", what);
  std::abort();
}

// Runs `parse`; InputError is the expected rejection of bad input, any other exception is a
// finding (std::terminate gives libFuzzer a crash with the exception's type in the report).
template <class Fn>
void ExpectOnlyInputError(Fn&& parse) {
  try {
    parse();
  } catch (const InputError&) {
    // Rejected with a message: the parser's contract.
  }
}

}  // namespace dpadmm::fuzz
