// SPDX-License-Identifier: Apache-2.0
// The per-sample part of the logistic loss pass (internal header): L, L', L'' of a block of
// samples and the running sums of the loss, for nodes with equal weights (local_solver.cpp,
// EvaluateLogistic explains the block-product form of the loss sum).
//
// Same bits on every instruction set: the per-sample values are computed element by element
// (no reduction, no fused multiply-add: -ffp-contract=off), so a loop vectorised 2 wide (SSE2,
// WebAssembly SIMD128) or 4 wide (AVX2) gives the same bits; the three sums run in sample order
// in scalar code. LogisticBlock dispatches at run time to an AVX2 build of the same kernel where
// the CPU has it (logistic_block_x86.cpp; other platforms: logistic_block_portable.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/portable_math_impl.h"

namespace dpadmm::detail {

// Samples per block: the loss sum takes one log of a product of this many factors in [1, 2].
inline constexpr std::int64_t kLogBlock = 64;

// e[j] = exp(x[j]) for x[j] <= 0, bit for bit math::impl::Exp (the same operations, element by
// element, so the compiler may vectorise the loop at any width without changing a bit). The
// scale 2^k is built from the bits of x / ln2 + 1.5 * 2^52, whose low 12 bits are k mod 4096.
// Inputs below -708 (k < -1022: subnormal results, and NaN) are redone by math::impl::Exp.
[[gnu::always_inline]] inline void ExpNonPositiveBlock(const double* x, double* e,
                                                       std::int64_t len) {
  constexpr double kShift = 6755399441055744.0;
  for (std::int64_t j = 0; j < len; ++j) {
    const double t = x[j] * math::impl::detail::kInvLn2 + kShift;
    const double kd = t - kShift;
    const double r = (x[j] - kd * math::impl::detail::kLn2Hi) - kd * math::impl::detail::kLn2Lo;
    const double er = math::impl::detail::ExpReduced(r);
    const std::uint64_t scale = (math::impl::detail::ToBits(t) + 1023) << 52;
    e[j] = er * math::impl::detail::FromBits(scale);
  }
  for (std::int64_t j = 0; j < len; ++j) {
    if (!(x[j] >= -708.0)) e[j] = math::impl::Exp(x[j]);
  }
}

// Running sums of the logistic loss with equal weights over blocks of kLogBlock samples (see
// EvaluateLogistic): sum L = hinge + (log_sum - correction), log_sum one log per block.
struct LogisticSums {
  double hinge = 0.0;
  double log_sum = 0.0;
  double correction = 0.0;
  double Total(double w0) {
    // The product of a last partial block (1 after a full one): as in the per-sample loop.
    return w0 * (hinge + (log_sum + math::impl::Log(pending) - correction));
  }
  double pending = 1.0;
};

// One block (len <= kLogBlock samples, starting at a multiple of kLogBlock): d1, d2 and the
// sums at margins z. The per-sample values are computed element by element (vectorisable, same
// bits at any width); the three sums run in sample order.
[[gnu::always_inline]] inline void LogisticBlockKernel(const double* z, std::int64_t len, double w0,
                                                       double* d1, double* d2, LogisticSums& sums) {
  double x[kLogBlock];
  double e[kLogBlock];
  double inv[kLogBlock];
  for (std::int64_t j = 0; j < len; ++j) x[j] = -std::abs(z[j]);
  ExpNonPositiveBlock(x, e, len);
  for (std::int64_t j = 0; j < len; ++j) {
    inv[j] = 1.0 / (1.0 + e[j]);
    // (z > 0 ? e : 1) without a branch: the sign of the margins is unpredictable.
    const double positive = static_cast<double>(z[j] > 0.0);
    d1[j] = -w0 * (positive * e[j] + (1.0 - positive)) * inv[j];
    d2[j] = w0 * e[j] * inv[j] * inv[j];
  }
  double hinge = sums.hinge;
  double correction = sums.correction;
  double product = 1.0;
  for (std::int64_t j = 0; j < len; ++j) {
    const double u = 1.0 + e[j];
    hinge += std::max(-z[j], 0.0);
    product *= u;
    correction += ((u - 1.0) - e[j]) * inv[j];
  }
  sums.hinge = hinge;
  sums.correction = correction;
  if (len == kLogBlock) {
    sums.log_sum += math::impl::Log(product);
    sums.pending = 1.0;
  } else {
    sums.pending = product;
  }
}

// One block through the kernel built for the active instruction set.
void LogisticBlock(const double* z, std::int64_t len, double w0, double* d1, double* d2,
                   LogisticSums& sums);

// Instruction sets LogisticBlock can use. kBaseline is the build's own (x86-64: SSE2).
enum class Isa { kBaseline, kAvx2 };
// The set in use: the best the CPU has, unless DPADMM_ISA=baseline is set in the environment
// or SetIsa chose another.
Isa ActiveIsa();
// Test hook: use `isa` from now on (process-wide; not while a solve runs). Returns false, and
// changes nothing, when the CPU or the build does not have it.
bool SetIsa(Isa isa);

}  // namespace dpadmm::detail
