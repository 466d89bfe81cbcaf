// SPDX-License-Identifier: Apache-2.0
// The dense products' SIMD128 kernels (algorithms/solver/dense_products.h) against the portable
// kernels and Eigen's products in this WebAssembly build, bit for bit, odd sizes and tails
// included (tests/dense_products_check.h). Run under node by ctest (wasm.dense_products).
#include <cstdio>

#include "dense_products_check.h"

int main() {
#if DPADMM_EXPECT_SIMD128 && !DPADMM_DENSE_SIMD128
  std::puts("FAIL: built with -msimd128 but the SIMD128 kernels were not compiled");
  return 1;
#endif
  // Each check, and whether a plain left-to-right order gave other bits on its data.
  struct Check {
    const char* what;
    std::string (*run)(bool&);
  };
  for (const Check& check :
       {Check{"the products", dpadmm::dense_products_check::CheckAll},
        Check{"the rank update", dpadmm::dense_products_check::CheckRankUpdate}}) {
    bool order_matters = false;
    const std::string diff = check.run(order_matters);
    if (!diff.empty()) {
      std::printf("FAIL: %s\n", diff.c_str());
      return 1;
    }
    if (!order_matters) {
      std::printf(
          "FAIL: %s: a plain left-to-right sum gave Eigen's bits everywhere: the data cannot "
          "tell the orders apart\n",
          check.what);
      return 1;
    }
  }
  std::printf("ok: %s kernels give Eigen's bits on every shape\n",
              DPADMM_DENSE_SIMD128 ? "SIMD128 and portable" : "portable");
  return 0;
}
