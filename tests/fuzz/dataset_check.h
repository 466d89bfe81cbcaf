// SPDX-License-Identifier: Apache-2.0
// Properties every loaded Dataset must have; a violation aborts (a finding).
#pragma once

#include <cmath>

#include "dpadmm/data/dataset.h"
#include "fuzz_common.h"

namespace dpadmm::fuzz {

inline void CheckDataset(const Dataset& d) {
  if (d.rows() < 1) Fail("a loaded data set has no rows");
  if (d.y.size() != d.rows()) Fail("label count differs from row count");
  for (Eigen::Index i = 0; i < d.y.size(); ++i) {
    if (d.y[i] != 1.0 && d.y[i] != -1.0) Fail("label is not -1 or +1");
  }
  try {
    d.Validate();
  } catch (const InputError&) {
    Fail("a loaded data set fails Dataset::Validate");
  }
  VisitRows(d, [](const auto& x) {
    if (x.cols() < 0) Fail("negative column count");
  });
  if (const auto* sparse = std::get_if<SparseRows>(&d.x)) {
    for (std::int64_t r = 0; r < sparse->outerSize(); ++r) {
      std::int64_t previous = -1;
      for (SparseRows::InnerIterator it(*sparse, r); it; ++it) {
        if (it.col() <= previous || it.col() >= sparse->cols()) Fail("bad sparse column index");
        if (!std::isfinite(it.value())) Fail("non-finite sparse value");
        previous = it.col();
      }
    }
  }
}

}  // namespace dpadmm::fuzz
