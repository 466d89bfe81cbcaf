// SPDX-License-Identifier: Apache-2.0
// Size guards of the dpadmm command: before anything is allocated, the memory a spec needs is
// estimated from its sizes (rows x features, nodes, edges, per-node state) and a spec above the
// limit is refused with a message that names the flag driving the estimate. Thread counts are
// capped too (a huge --threads used to crash inside the TBB arena).
#pragma once

#include <cstdint>
#include <string>

#include "dpadmm/run/run_spec.h"

namespace dpadmm::cli {

// The largest --threads accepted: far above any useful value (results are bitwise identical for
// every thread count), far below what makes the thread library fail.
inline constexpr int kMaxThreads = 1024;

struct MemoryEstimate {
  double bytes = 0.0;
  std::string largest;  // the biggest part, in the user's terms ("--nodes 100000000: ...")
};

// A rough upper estimate of the peak memory of a run of `spec` (calibrated on measured runs:
// about 16 KB per node plus d-sized vectors per node and edge, a d x d Hessian per node when
// Newton factorises it densely, the data's peak during set-up: 1.5x its compact size where
// the rows are split without a second copy, else 2.25x, measured at 1.16-1.20x and about 2x;
// three copies for the sharing family). Data files count with four times their size; features a
// file implies but the spec does not state are not known before loading (a failed allocation then
// ends the run with exit 2).
MemoryEstimate EstimateMemory(const RunSpec& spec);

// The default limit: 75% of the physical memory (or of the cgroup limit, if lower).
std::int64_t DefaultMemoryLimit();

// Parses --max-memory: bytes, or a number with a suffix K, M, G, T (powers of 1024); 0 = no
// limit. Throws InputError naming the flag.
std::int64_t ParseMemorySize(const std::string& text, const std::string& flag);

// "38 GB", "512 MB".
std::string FormatBytes(double bytes);

// Throws InputError if the spec's threads exceed kMaxThreads or its estimate exceeds
// `limit_bytes` (0 = no memory limit). `limit_note` says where the limit comes from.
void CheckLimits(const RunSpec& spec, std::int64_t limit_bytes, const std::string& limit_note);

}  // namespace dpadmm::cli
