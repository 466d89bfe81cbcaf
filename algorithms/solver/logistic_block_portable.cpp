// SPDX-License-Identifier: Apache-2.0
// Platforms without run-time dispatch (WebAssembly, non-x86): the build's own instruction set
// only (wasm: SIMD128, same bits as x86-64's; see logistic_block.h).
#include "solver/logistic_block.h"

namespace dpadmm::detail {

void LogisticBlock(const double* z, std::int64_t len, double w0, double* d1, double* d2,
                   LogisticSums& sums) {
  LogisticBlockKernel(z, len, w0, d1, d2, sums);
}

Isa ActiveIsa() { return Isa::kBaseline; }

bool SetIsa(Isa isa) { return isa == Isa::kBaseline; }

}  // namespace dpadmm::detail
