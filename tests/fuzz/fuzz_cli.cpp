// SPDX-License-Identifier: Apache-2.0
// The command line of `dpadmm` on arbitrary bytes: the input is split into arguments at NUL and
// newline bytes, prefixed with the program name, and run through the CLI's parse step
// (cli/check_command_line.h: CLI11 parsing, the strict number parser, the spec's validation,
// the output-path and size checks) without running anything. Every input must end in an exit
// code the command documents (0, 2 or 6, or CLI11's own for --help); any other exception, a
// crash or undefined behaviour is a finding.
#include <cstdint>
#include <iostream>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include "check_command_line.h"
#include "fuzz_common.h"

namespace {

// Discards what --help and --version print on stdout.
class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 2048) return 0;
  std::vector<std::string> args{"dpadmm"};
  std::string current;
  for (std::size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\0' || c == '\n') {
      args.push_back(current);
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) args.push_back(current);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  static NullBuffer null_buffer;
  std::streambuf* saved = std::cout.rdbuf(&null_buffer);
  std::ostringstream err;
  int code = 0;
  try {
    code = dpadmm::cli::CheckCommandLine(static_cast<int>(args.size()), argv.data(), err);
  } catch (...) {
    std::cout.rdbuf(saved);
    throw;  // escapes to libFuzzer: std::terminate, a finding with the exception's type
  }
  std::cout.rdbuf(saved);
  if (code != 0 && code != 2 && code != 6) {
    std::fprintf(stderr, "exit code %d, stderr: %s\n", code, err.str().c_str());
    dpadmm::fuzz::Fail("an undocumented exit code");
  }
  if (code != 0 && err.str().empty()) dpadmm::fuzz::Fail("an error without a message");
  return 0;
}
