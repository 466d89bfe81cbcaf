// SPDX-License-Identifier: Apache-2.0
// LoadPartition on arbitrary bytes. The row count is taken from the input's line count (so
// valid files get past the length check) and off by one; node counts 1, 3 and 0. A partition
// that loads must assign every row exactly once, in file order, to a node in range.
#include <algorithm>
#include <vector>

#include "dpadmm/data/preprocessing.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dpadmm;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string path = fuzz::TempDir::Get().Write("partition.txt", text);
  std::int64_t lines = std::count(text.begin(), text.end(), '\n');
  if (!text.empty() && text.back() != '\n') ++lines;
  for (const std::int64_t rows : {lines, lines + 1}) {
    for (const int nodes : {1, 3, 0}) {
      fuzz::ExpectOnlyInputError([&] {
        const Partition p = LoadPartition(path, rows, nodes);
        if (static_cast<int>(p.size()) != nodes) fuzz::Fail("wrong number of parts");
        std::vector<int> owner(static_cast<std::size_t>(rows), -1);
        for (int i = 0; i < nodes; ++i) {
          const auto& part = p[static_cast<std::size_t>(i)];
          if (part.empty()) fuzz::Fail("empty part");
          if (!std::is_sorted(part.begin(), part.end())) fuzz::Fail("part not in row order");
          for (std::int64_t r : part) {
            if (r < 0 || r >= rows || owner[static_cast<std::size_t>(r)] != -1) {
              fuzz::Fail("row out of range or assigned twice");
            }
            owner[static_cast<std::size_t>(r)] = i;
          }
        }
        if (std::count(owner.begin(), owner.end(), -1) != 0) fuzz::Fail("row not assigned");
      });
    }
  }
  return 0;
}
