// SPDX-License-Identifier: Apache-2.0
// LoadLibsvm on arbitrary bytes, with the column count inferred and fixed.
#include "dataset_check.h"
#include "dpadmm/data/loaders.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dpadmm;
  const std::string path = fuzz::TempDir::Get().Write(
      "input.libsvm", std::string_view(reinterpret_cast<const char*>(data), size));
  for (const std::int64_t num_features : {std::int64_t{0}, std::int64_t{4}}) {
    fuzz::ExpectOnlyInputError([&] {
      const Dataset d = LoadLibsvm(path, num_features);
      fuzz::CheckDataset(d);
      if (num_features > 0 && d.cols() != num_features) fuzz::Fail("column count not fixed");
    });
  }
  return 0;
}
