// SPDX-License-Identifier: Apache-2.0
// LoadAsc on arbitrary bytes: the data file, a line "@@", then the label file.
#include "dataset_check.h"
#include "dpadmm/data/loaders.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dpadmm;
  const auto [values, labels] =
      fuzz::SplitTwo(std::string_view(reinterpret_cast<const char*>(data), size));
  fuzz::TempDir& dir = fuzz::TempDir::Get();
  const std::string data_path = dir.Write("x_train_data_1.asc", values);
  const std::string labels_path = dir.Write("x_train_labels_1.asc", labels);
  fuzz::ExpectOnlyInputError([&] { fuzz::CheckDataset(LoadAsc(data_path, labels_path)); });
  return 0;
}
