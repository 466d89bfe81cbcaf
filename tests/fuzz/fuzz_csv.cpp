// SPDX-License-Identifier: Apache-2.0
// LoadCsv on arbitrary bytes with a few label columns, delimiters and header settings.
#include "dataset_check.h"
#include "dpadmm/data/loaders.h"

namespace {
struct Options {
  int label_column;
  char delimiter;
  bool has_header;
};
constexpr Options kOptions[] = {
    {-1, ',', false}, {0, ',', true}, {-2, ' ', false}, {1, ';', true}, {-1, '\t', false}};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dpadmm;
  const std::string path = fuzz::TempDir::Get().Write(
      "input.csv", std::string_view(reinterpret_cast<const char*>(data), size));
  for (const Options& o : kOptions) {
    fuzz::ExpectOnlyInputError([&] {
      const Dataset d = LoadCsv(path, o.label_column, o.delimiter, o.has_header);
      fuzz::CheckDataset(d);
      if (d.is_sparse() || d.cols() < 1) fuzz::Fail("CSV data must be dense with a feature");
    });
  }
  return 0;
}
