// SPDX-License-Identifier: Apache-2.0
// LoadAdult on arbitrary bytes: the train file, a line "@@", then the test file.
#include "dataset_check.h"
#include "dpadmm/data/loaders.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dpadmm;
  const auto [train, test] =
      fuzz::SplitTwo(std::string_view(reinterpret_cast<const char*>(data), size));
  fuzz::TempDir& dir = fuzz::TempDir::Get();
  const std::string train_path = dir.Write("adult.data", train);
  const std::string test_path = dir.Write("adult.test", test);
  fuzz::ExpectOnlyInputError([&] {
    const AdultData a = LoadAdult(train_path, test_path);
    fuzz::CheckDataset(a.train);
    fuzz::CheckDataset(a.test);
    if (a.train.cols() != a.test.cols()) fuzz::Fail("train and test column counts differ");
  });
  return 0;
}
