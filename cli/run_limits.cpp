// SPDX-License-Identifier: Apache-2.0
#include "run_limits.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <variant>
#include <vector>

#include "core/numeric_parse.h"
#include "dpadmm/core/error.h"

namespace dpadmm::cli {
namespace {

double FileBytes(const std::string& path) {
  if (path.empty()) return 0.0;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0.0 : static_cast<double>(size);
}

// Edges of the graph the spec asks for.
double EdgesOf(const GraphSpec& g) {
  const double n = g.nodes;
  switch (g.topology) {
    case Topology::kRing: return n;
    case Topology::kStar: return std::max(n - 1.0, 0.0);
    case Topology::kComplete: return n * (n - 1.0) / 2.0;
    case Topology::kGrid: return 2.0 * n;
    case Topology::kRandom:
      return g.edges == GraphSpec::kAutoEdges ? 1.3 * n : static_cast<double>(g.edges);
    case Topology::kFile: return FileBytes(g.file) / 4.0;  // "i j\n" is at least 4 bytes
  }
  return n;
}

struct Part {
  double bytes;
  std::string what;
};

}  // namespace

MemoryEstimate EstimateMemory(const RunSpec& spec) {
  const DataSpec& data = spec.data;
  const double bias = data.add_bias ? 1.0 : 0.0;
  // Features: stated by the spec for generated data and for libsvm with --features.
  double d = 0.0;
  std::string d_flag;
  if (IsGenerated(data.source)) {
    d = static_cast<double>(data.dims) + bias;
    d_flag = "--dims " + std::to_string(data.dims);
  } else if (data.source == DataSource::kLibsvm && data.num_features > 0) {
    d = static_cast<double>(data.num_features) + bias;
    d_flag = "--features " + std::to_string(data.num_features);
  }
  std::vector<Part> parts;
  // Data: the peak over the set-up and the run, as a multiple of the compact size (CSR: 12 bytes
  // per stored entry and 16 per row; dense: 8 per value and 16 per row). bench_memory measures
  // 1.16x for dense rows split in place after the optimum and 1.20x for sparse rows split in
  // one pass (on Linux, which gives the consumed pages back; elsewhere two copies), plus O(N d);
  // about 2.0x where every slice is copied out of the whole set before the optimum: under
  // dp-bounds or PDML (the CLI's peak resident set at 1 000 000 dense rows). The factors below
  // keep a margin. The sharing family keeps three copies (as generated, its feature blocks,
  // their normalised parts).
  if (IsGenerated(data.source)) {
    const double rows = static_cast<double>(data.rows);
    const bool sparse = data.source == DataSource::kSparse;
    const bool consensus = spec.family() == Family::kConsensus;
#if defined(__linux__)
    const bool pages_given_back = true;
#else
    const bool pages_given_back = false;
#endif
    const bool split_in_place = consensus && (!sparse || pages_given_back) &&
                                EffectiveScaling(spec) != Scaling::kDpBounds &&
                                spec.algorithm.name() != Algorithm::kPdml;
    const double copies = !consensus ? 3.0 : split_in_place ? 1.5 : 2.25;
    const double per_row =
        sparse ? 12.0 * static_cast<double>(data.sparse_nnz_per_row) + 16.0 : 8.0 * d + 16.0;
    parts.push_back(
        {copies * rows * per_row,
         "--rows " + std::to_string(data.rows) + " x " +
             (sparse ? "--nnz-per-row " + std::to_string(data.sparse_nnz_per_row) : d_flag)});
  } else {
    const double text = FileBytes(data.train_path) + FileBytes(data.test_path) +
                        FileBytes(data.train_labels_path) + FileBytes(data.test_labels_path);
    parts.push_back({4.0 * text, "the data files (" + data.train_path + ")"});
  }
  const double dense_max = static_cast<double>(spec.newton.dense_hessian_max_dim);
  const double hessian = d <= dense_max ? 8.0 * d * d : 0.0;
  if (spec.family() == Family::kConsensus) {
    const double n = spec.graph.nodes;
    const double edges = EdgesOf(spec.graph);
    const double degree = n > 0 ? 2.0 * edges / n : 0.0;
    parts.push_back({n * (16384.0 + 8.0 * d * (16.0 + 4.0 * degree) + hessian),
                     "--nodes " + std::to_string(spec.graph.nodes) +
                         (d > 0 ? " with " + d_flag : std::string())});
    parts.push_back({edges * (1024.0 + 32.0 * d),
                     "the graph's " +
                         std::to_string(static_cast<long long>(std::min(edges, 9e18))) + " edges"});
    if (spec.compute_optimum) parts.push_back({2.0 * hessian, "the centralized optimum"});
  } else {
    // Sharing: per party a block of d_m features, its Gram matrix when private.
    int parties = 2;
    std::visit(
        [&](const auto& p) {
          if constexpr (requires { p.parties; }) parties = p.parties;
        },
        spec.algorithm.params);
    const double dm = parties > 0 ? d / parties : d;
    const double rows = IsGenerated(data.source) ? static_cast<double>(data.rows) : 0.0;
    parts.push_back(
        {parties * (16384.0 + 3.0 * 8.0 * dm * dm + 64.0 * dm) + 32.0 * rows * parties,
         "--parties " + std::to_string(parties) + (d > 0 ? " with " + d_flag : std::string())});
  }
  MemoryEstimate estimate;
  const Part* largest = nullptr;
  for (const Part& p : parts) {
    estimate.bytes += p.bytes;
    if (largest == nullptr || p.bytes > largest->bytes) largest = &p;
  }
  estimate.bytes += 64.0 * 1024 * 1024;  // the program itself, the thread pool
  if (largest != nullptr) estimate.largest = largest->what;
  return estimate;
}

std::int64_t DefaultMemoryLimit() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  double physical = pages > 0 && page_size > 0 ? static_cast<double>(pages) * page_size : 0.0;
  // A cgroup limit (containers) is the real ceiling when it is lower.
  std::ifstream cgroup("/sys/fs/cgroup/memory.max");
  std::string text;
  if (cgroup >> text) {
    std::int64_t cg = 0;
    if (internal::ParseStrictInteger(text, cg).empty() && cg > 0 &&
        (physical == 0.0 || static_cast<double>(cg) < physical)) {
      physical = static_cast<double>(cg);
    }
  }
  return physical > 0.0 ? static_cast<std::int64_t>(0.75 * physical) : 0;
}

std::int64_t ParseMemorySize(const std::string& text, const std::string& flag) {
  std::string digits = text;
  double scale = 1.0;
  if (!digits.empty()) {
    const char last = static_cast<char>(std::toupper(static_cast<unsigned char>(digits.back())));
    const std::string suffixes = "KMGT";
    if (const auto k = suffixes.find(last); k != std::string::npos) {
      scale = std::pow(1024.0, static_cast<double>(k + 1));
      digits.pop_back();
    }
  }
  double value = 0.0;
  std::string error = internal::ParseStrictDouble(digits, value);
  if (error.empty() && (value < 0.0 || value * scale > 9e18)) error = "out of range";
  if (!error.empty()) {
    throw InputError(flag + ": must be a size in bytes, optionally with a suffix K, M, G or T " +
                     "(0 = no limit), got " + internal::QuoteToken(text));
  }
  return static_cast<std::int64_t>(value * scale);
}

std::string FormatBytes(double bytes) {
  const char* units[] = {"bytes", "KB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 6) {
    bytes /= 1024.0;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), bytes < 10.0 && u > 0 ? "%.1f %s" : "%.0f %s", bytes, units[u]);
  return buf;
}

void CheckLimits(const RunSpec& spec, std::int64_t limit_bytes, const std::string& limit_note) {
  if (spec.threads > kMaxThreads) {
    throw InputError("--threads " + std::to_string(spec.threads) + " is above the limit of " +
                     std::to_string(kMaxThreads) +
                     " (results are identical for every thread count; 0 = all cores)");
  }
  // Hard caps, whatever the memory limit: sizes no machine holds, whose products would
  // overflow the 64-bit index arithmetic of the data and the solver.
  const auto cap = [](const char* flag, std::int64_t value, std::int64_t max) {
    if (value > max) {
      throw InputError(std::string(flag) + " " + std::to_string(value) + " is above the limit of " +
                       std::to_string(max));
    }
  };
  constexpr std::int64_t kMaxFeatures = (std::int64_t{1} << 31) - 2;  // leaves room for --bias
  constexpr std::int64_t kMaxRows = std::int64_t{1} << 40;
  cap("--features", spec.data.num_features, kMaxFeatures);
  cap("--dims", spec.data.dims, kMaxFeatures);
  cap("--rows", spec.data.rows, kMaxRows);
  cap("--nnz-per-row", spec.data.sparse_nnz_per_row, kMaxFeatures);
  if (limit_bytes <= 0) return;
  const MemoryEstimate estimate = EstimateMemory(spec);
  if (estimate.bytes > static_cast<double>(limit_bytes)) {
    throw InputError("this run would need about " + FormatBytes(estimate.bytes) +
                     " of memory (mostly " + estimate.largest + "), more than the limit of " +
                     FormatBytes(static_cast<double>(limit_bytes)) + " (" + limit_note +
                     "; --max-memory SIZE sets it, 0 = no limit)");
  }
}

}  // namespace dpadmm::cli
