// SPDX-License-Identifier: Apache-2.0
// x86-64 (GCC, Clang): LogisticBlock built twice from the one kernel in logistic_block.h, for
// the baseline (SSE2) and for AVX2, chosen at first use from the CPU (same bits either way: see
// the header). DPADMM_ISA=baseline in the environment keeps the baseline.
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "solver/logistic_block.h"

namespace dpadmm::detail {
namespace {

void BlockBaseline(const double* z, std::int64_t len, double w0, double* d1, double* d2,
                   LogisticSums& sums) {
  LogisticBlockKernel(z, len, w0, d1, d2, sums);
}

__attribute__((target("avx2"))) void BlockAvx2(const double* z, std::int64_t len, double w0,
                                               double* d1, double* d2, LogisticSums& sums) {
  LogisticBlockKernel(z, len, w0, d1, d2, sums);
}

bool CpuHasAvx2() { return __builtin_cpu_supports("avx2") != 0; }

Isa DefaultIsa() {
  const char* env = std::getenv("DPADMM_ISA");
  if (env != nullptr && std::strcmp(env, "baseline") == 0) return Isa::kBaseline;
  return CpuHasAvx2() ? Isa::kAvx2 : Isa::kBaseline;
}

std::atomic<Isa>& Active() {
  static std::atomic<Isa> isa{DefaultIsa()};
  return isa;
}

}  // namespace

void LogisticBlock(const double* z, std::int64_t len, double w0, double* d1, double* d2,
                   LogisticSums& sums) {
  if (Active().load(std::memory_order_relaxed) == Isa::kAvx2) {
    BlockAvx2(z, len, w0, d1, d2, sums);
  } else {
    BlockBaseline(z, len, w0, d1, d2, sums);
  }
}

Isa ActiveIsa() { return Active().load(); }

bool SetIsa(Isa isa) {
  if (isa == Isa::kAvx2 && !CpuHasAvx2()) return false;
  Active().store(isa);
  return true;
}

}  // namespace dpadmm::detail
