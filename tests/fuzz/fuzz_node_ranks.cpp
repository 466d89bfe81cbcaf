// SPDX-License-Identifier: Apache-2.0
// ParseNodeRanks (the MPI engine's node-to-rank file) on arbitrary bytes. Its rejection is
// std::invalid_argument "name:line: ..."; a map that parses has one rank per line, each >= 0.
#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>

#include "dpadmm/runtime/mpi.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::istringstream in(text);
  try {
    const std::vector<int> map = dpadmm::runtime::ParseNodeRanks(in, "ranks.txt");
    std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    if (!text.empty() && text.back() != '\n') ++lines;
    if (map.size() != lines) dpadmm::fuzz::Fail("not one rank per line");
    for (int r : map) {
      if (r < 0) dpadmm::fuzz::Fail("negative rank");
    }
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).rfind("ranks.txt", 0) != 0) {
      dpadmm::fuzz::Fail("the message does not start with the file name");
    }
  }
  return 0;
}
