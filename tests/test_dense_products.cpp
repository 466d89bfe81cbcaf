// SPDX-License-Identifier: Apache-2.0
// The dense products' portable kernels (algorithms/solver/dense_products.h), which define the
// order the WebAssembly SIMD128 kernels follow, give Eigen's bits natively, odd sizes and tails
// included (tests/dense_products_check.h; the wasm build runs the same check on its SIMD128
// kernels: wasm/tests/dense_products_test.cpp).
#include <gtest/gtest.h>

#include "dense_products_check.h"

namespace dpadmm {
namespace {

TEST(DenseProducts, PortableKernelsGiveEigensBits) {
  bool order_matters = false;
  EXPECT_EQ(dense_products_check::CheckAll(order_matters), "");
  // The check can fail: a plain left-to-right sum gives other bits on this data.
  EXPECT_TRUE(order_matters);
}

TEST(DenseProducts, RankUpdateGivesEigensBits) {
  bool order_matters = false;
  EXPECT_EQ(dense_products_check::CheckRankUpdate(order_matters), "");
  // The check can fail: summing every entry in plain order gives other bits on this data.
  EXPECT_TRUE(order_matters);
}

}  // namespace
}  // namespace dpadmm
