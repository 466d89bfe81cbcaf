// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/data/preprocessing.h"

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <sys/mman.h>
#include <unistd.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "core/text_parse.h"
#include "data/memory_release.h"
#include "dpadmm/core/error.h"
#include "dpadmm/core/random.h"

namespace dpadmm {
namespace {

// Stream rounds under Purpose::kPartition.
constexpr std::uint64_t kShuffleRound = 0;
constexpr std::uint64_t kDirichletRound = 1;

// 0, 1, ..., n-1 in a seeded random order (Fisher-Yates).
std::vector<std::int64_t> ShuffledRange(std::int64_t n, Stream& s) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  for (std::int64_t i = n - 1; i > 0; --i) {
    const auto j = static_cast<std::int64_t>(s.UniformInt(static_cast<std::uint64_t>(i + 1)));
    std::swap(order[i], order[j]);
  }
  return order;
}

void RequireRowsForNodes(const char* where, std::int64_t rows, std::int64_t nodes) {
  if (nodes < 1) throw InputError(std::string(where) + ": need at least one node");
  if (rows < nodes) {
    throw InputError(std::string(where) + ": " + std::to_string(rows) +
                     " rows cannot give each of " + std::to_string(nodes) +
                     " nodes at least one row");
  }
}

// Contiguous blocks of the given sizes taken from a seeded shuffle of the rows, each sorted.
Partition AssignBlocks(const std::vector<std::int64_t>& sizes, std::int64_t rows,
                       std::uint64_t seed) {
  Stream s(seed, 0, kShuffleRound, Purpose::kPartition);
  const std::vector<std::int64_t> order = ShuffledRange(rows, s);
  Partition p(sizes.size());
  auto next = order.begin();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    p[i].assign(next, next + sizes[i]);
    next += sizes[i];
    std::sort(p[i].begin(), p[i].end());
  }
  return p;
}

// floor(rows * w_i / sum w) each, the remainder one by one by largest fraction (lower index
// first on ties). The floors never sum to more than rows, so sizes sum to exactly rows.
std::vector<std::int64_t> LargestRemainderSizes(std::int64_t rows, const std::vector<double>& w) {
  const double total = std::accumulate(w.begin(), w.end(), 0.0);
  std::vector<std::int64_t> sizes(w.size());
  std::vector<double> fraction(w.size());
  std::int64_t assigned = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const double share = static_cast<double>(rows) * (w[i] / total);
    sizes[i] = std::min(rows, static_cast<std::int64_t>(std::floor(share)));
    fraction[i] = share - static_cast<double>(sizes[i]);
    assigned += sizes[i];
  }
  std::vector<std::size_t> order(w.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return fraction[a] > fraction[b]; });
  for (std::size_t k = 0; assigned < rows; k = (k + 1) % order.size(), ++assigned) {
    ++sizes[order[k]];
  }
  return sizes;
}

}  // namespace

namespace {

// The first row of `d` whose norm is not finite, or -1 (the loaders refuse such rows naming
// file and line; this names rows of data built in memory).
std::int64_t FirstNonFiniteNormRow(const Dataset& d) {
  return VisitRows(d, [](const auto& x) -> std::int64_t {
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      if (!std::isfinite(x.row(r).squaredNorm())) return r;
    }
    return -1;
  });
}

std::string NonFiniteRow(const char* what, const Dataset& train, const Dataset& test) {
  for (const Dataset* d : {&train, &test}) {
    const std::int64_t r = FirstNonFiniteNormRow(*d);
    if (r >= 0) {
      return std::string(what) + ": " + (d->name.empty() ? "dataset" : d->name) + " row " +
             std::to_string(r) +
             " (0-based): the row's norm is not finite (a value is NaN or "
             "Inf, or the sum of the squares overflows)";
    }
  }
  return std::string(what) +
         ": the data of another holder contain a row whose norm is not "
         "finite";
}

}  // namespace

double GlobalMaxNormScale(Dataset& train, Dataset& test,
                          const std::function<double(double)>& max_over_holders) {
  const auto max_norm_of_all = [&] {
    const double local = std::max(train.MaxRowNorm(), test.MaxRowNorm());
    return max_over_holders ? max_over_holders(local) : local;
  };
  const double max_norm = max_norm_of_all();
  if (!std::isfinite(max_norm)) {
    throw InputError(NonFiniteRow("global-max-norm scaling", train, test));
  }
  if (max_norm == 0.0) return 1.0;
  double factor = 1.0 / max_norm;
  train.Scale(factor);
  test.Scale(factor);
  // Rounding can leave a norm a few ulps above 1; the privacy analysis needs <= 1.
  constexpr double kShrink = 1.0 - 0x1.0p-50;
  while (max_norm_of_all() > 1.0) {
    train.Scale(kShrink);
    test.Scale(kShrink);
    factor *= kShrink;
  }
  return factor;
}

namespace {

// The largest of the ways this library sums a row's squares (Eigen's reduction, as in
// Dataset::MaxRowNorm for dense rows, and a plain loop, as for sparse rows): the bound must hold
// for every one of them.
template <class Row>
double SquaredNorm(const Row& row) {
  double plain = 0.0;
  for (Eigen::Index k = 0; k < row.size(); ++k) plain += row[k] * row[k];
  return std::max(plain, static_cast<double>(row.squaredNorm()));
}

// Divides a row (a dense row or a sparse row's stored values) by max(1, ||x||), then shrinks
// it by ulps while rounding leaves its norm above 1. Returns true if it changed.
template <class Row>
bool ClipRow(Row&& row, const Dataset& data, std::int64_t r) {
  const double sq = SquaredNorm(row);
  if (!std::isfinite(sq)) {
    throw InputError("clipping: " + (data.name.empty() ? std::string("dataset") : data.name) +
                     " row " + std::to_string(r) +
                     " (0-based): the row's norm is not finite (a value is NaN or Inf, or the "
                     "sum of the squares overflows)");
  }
  // On the sum of squares, not its square root: sqrt(1 + 2^-52) rounds to 1.
  if (sq <= 1.0) return false;
  row /= std::sqrt(sq);
  constexpr double kShrink = 1.0 - 0x1.0p-50;
  while (SquaredNorm(row) > 1.0) row *= kShrink;
  return true;
}

}  // namespace

std::int64_t ClipRows(Dataset& data) {
  std::int64_t clipped = 0;
  if (auto* dense = std::get_if<DenseRows>(&data.x)) {
    for (Eigen::Index r = 0; r < dense->rows(); ++r) clipped += ClipRow(dense->row(r), data, r);
    return clipped;
  }
  auto& sparse = std::get<SparseRows>(data.x);
  sparse.makeCompressed();
  for (std::int64_t r = 0; r < sparse.outerSize(); ++r) {
    const std::int64_t begin = sparse.outerIndexPtr()[r];
    const std::int64_t end = sparse.outerIndexPtr()[r + 1];
    Eigen::Map<Eigen::VectorXd> values(sparse.valuePtr() + begin, end - begin);
    clipped += ClipRow(values, data, r);
  }
  return clipped;
}

std::int64_t ClipRowBlocks(Dataset& data, const std::vector<std::int64_t>& block_sizes) {
  const std::int64_t total =
      std::accumulate(block_sizes.begin(), block_sizes.end(), std::int64_t{0});
  if (total != data.cols()) {
    throw InputError("ClipRowBlocks: the blocks cover " + std::to_string(total) +
                     " columns but the data has " + std::to_string(data.cols()));
  }
  std::int64_t clipped = 0;
  if (auto* dense = std::get_if<DenseRows>(&data.x)) {
    for (Eigen::Index r = 0; r < dense->rows(); ++r) {
      std::int64_t offset = 0;
      for (std::int64_t size : block_sizes) {
        clipped += ClipRow(dense->row(r).segment(offset, size), data, r);
        offset += size;
      }
    }
    return clipped;
  }
  auto& sparse = std::get<SparseRows>(data.x);
  sparse.makeCompressed();
  for (std::int64_t r = 0; r < sparse.outerSize(); ++r) {
    // A compressed row stores its columns in increasing order: each block is one run of entries.
    std::int64_t k = sparse.outerIndexPtr()[r];
    const std::int64_t end = sparse.outerIndexPtr()[r + 1];
    std::int64_t block_end = 0;
    for (std::int64_t size : block_sizes) {
      block_end += size;
      const std::int64_t first = k;
      while (k < end && sparse.innerIndexPtr()[k] < block_end) ++k;
      Eigen::Map<Eigen::VectorXd> values(sparse.valuePtr() + first, k - first);
      clipped += ClipRow(values, data, r);
    }
  }
  return clipped;
}

FeatureBounds UniformBounds(std::int64_t features, double lo, double hi) {
  FeatureBounds b;
  b.lo.assign(static_cast<std::size_t>(features), lo);
  b.hi.assign(static_cast<std::size_t>(features), hi);
  return b;
}

FeatureBounds LoadFeatureBounds(const std::string& path, std::int64_t features,
                                const std::vector<double>& fallback) {
  const std::string text = internal::ReadWholeFile(path);
  internal::LineReader lines(text);
  std::string_view line;
  std::vector<std::string_view> fields;
  FeatureBounds b;
  b.lo.assign(static_cast<std::size_t>(features), std::nan(""));
  b.hi.assign(static_cast<std::size_t>(features), std::nan(""));
  std::int64_t next = 0;  // column of the next "lo hi" line
  std::size_t form = 0;   // 2 or 3 fields per line, fixed by the first line
  while (lines.Next(line)) {
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    if (internal::IsBlank(line)) continue;
    internal::SplitFields(line, ' ', fields);
    if (fields.size() != 2 && fields.size() != 3) {
      ThrowAt(path, lines.number(),
              "expected \"lo hi\" or \"index lo hi\", found " + std::to_string(fields.size()) +
                  " fields");
    }
    if (form == 0) form = fields.size();
    if (fields.size() != form) {
      ThrowAt(path, lines.number(), "mixes \"lo hi\" and \"index lo hi\" lines");
    }
    std::int64_t column = next++;
    if (form == 3) column = internal::ParseInt(fields[0], path, lines.number(), "feature index");
    if (column < 0 || column >= features) {
      ThrowAt(path, lines.number(),
              form == 3 ? "feature index " + std::to_string(column) + " out of range [0, " +
                              std::to_string(features) + ")"
                        : "more lines than the " + std::to_string(features) + " features");
    }
    const auto k = static_cast<std::size_t>(column);
    if (!std::isnan(b.lo[k])) {
      ThrowAt(path, lines.number(), "feature " + std::to_string(column) + " given twice");
    }
    const double lo = internal::ParseFiniteDouble(fields[form - 2], path, lines.number(), "lo");
    const double hi = internal::ParseFiniteDouble(fields[form - 1], path, lines.number(), "hi");
    if (!(lo < hi)) {
      ThrowAt(path, lines.number(), "bounds must have lo < hi");
    }
    b.lo[k] = lo;
    b.hi[k] = hi;
  }
  for (std::int64_t j = 0; j < features; ++j) {
    const auto k = static_cast<std::size_t>(j);
    if (!std::isnan(b.lo[k])) continue;
    if (fallback.size() != 2) {
      ThrowAt(path, 0,
              "gives no bounds for feature " + std::to_string(j) + " (of " +
                  std::to_string(features) + "; or give --feature-range LO,HI for the rest)");
    }
    b.lo[k] = fallback[0];
    b.hi[k] = fallback[1];
  }
  return b;
}

void ScaleByPublicBounds(Dataset& data, const FeatureBounds& bounds, std::int64_t dims) {
  const auto cols = static_cast<std::size_t>(data.cols());
  if (bounds.lo.size() != cols || bounds.hi.size() != cols) {
    throw InputError("public bounds give " + std::to_string(bounds.lo.size()) +
                     " features but the data has " + std::to_string(cols) + " columns");
  }
  const double root = std::sqrt(static_cast<double>(std::max<std::int64_t>(dims, 1)));
  if (auto* dense = std::get_if<DenseRows>(&data.x)) {
    for (std::size_t j = 0; j < cols; ++j) {
      const double width = bounds.hi[j] - bounds.lo[j];
      const double mid = bounds.lo[j] + bounds.hi[j];
      auto col = dense->col(static_cast<Eigen::Index>(j));
      col = ((2.0 * col.array() - mid) / (width * root)).matrix();
    }
    return;
  }
  auto& sparse = std::get<SparseRows>(data.x);
  for (std::int64_t r = 0; r < sparse.outerSize(); ++r) {
    for (SparseRows::InnerIterator it(sparse, r); it; ++it) {
      const auto j = static_cast<std::size_t>(it.col());
      it.valueRef() /= std::max(std::abs(bounds.lo[j]), std::abs(bounds.hi[j])) * root;
    }
  }
}

SplitRows SplitRowIds(std::int64_t rows, double test_fraction, std::uint64_t seed) {
  if (!(test_fraction > 0.0 && test_fraction < 1.0)) {
    throw InputError("SplitTrainTest: test_fraction must be in (0, 1), got " +
                     std::to_string(test_fraction));
  }
  const auto n_test =
      static_cast<std::int64_t>(std::llround(test_fraction * static_cast<double>(rows)));
  if (n_test == 0 || n_test == rows) {
    throw InputError("SplitTrainTest: " + std::to_string(rows) + " rows with test_fraction " +
                     std::to_string(test_fraction) + " leave the train or test set empty");
  }
  Stream s(seed, 0, 0, Purpose::kSplit);
  std::vector<std::int64_t> order = ShuffledRange(rows, s);
  SplitRows out;
  out.test.assign(order.begin(), order.begin() + n_test);
  out.train.assign(order.begin() + n_test, order.end());
  std::sort(out.test.begin(), out.test.end());
  std::sort(out.train.begin(), out.train.end());
  return out;
}

TrainTest SplitTrainTest(const Dataset& all, double test_fraction, std::uint64_t seed) {
  const SplitRows rows = SplitRowIds(all.rows(), test_fraction, seed);
  return TrainTest{all.Subset(rows.train), all.Subset(rows.test)};
}

namespace internal {

const char* ReleasePages(const char* begin, const char* end) {
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
  static const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t first = (reinterpret_cast<std::uintptr_t>(begin) + page - 1) / page * page;
  const std::uintptr_t last = reinterpret_cast<std::uintptr_t>(end) / page * page;
  if (last <= first) return begin;
  // NOLINTNEXTLINE(performance-no-int-to-ptr): page addresses computed from the pointers
  (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
  return begin + (last - reinterpret_cast<std::uintptr_t>(begin));
#else
  (void)end;
  return begin;
#endif
}

void GiveBackFreeHeap() {
#if defined(__GLIBC__)
  (void)malloc_trim(0);
#endif
}

}  // namespace internal

namespace {

// The sparse rows of `x` (compressed), which `partition` covers exactly once, copied into the
// slices' rows (slices[i] takes partition[i]'s rows in its order, as Subset does) in one pass
// over `x` in storage order. The pages of `x`'s entries are released behind the pass
// (ReleasePages), and a slice's pages become resident only as they are written, so the
// resident memory stays near one copy of the set instead of two.
void SplitSparseRows(const SparseRows& x, const Partition& partition, std::vector<Dataset>& slices,
                     const std::string& where) {
  const std::int64_t n = x.rows();
  const SparseIndex* outer = x.outerIndexPtr();
  // Row r goes to slice part[r], its entries from offset to[r] of that slice's arrays.
  std::vector<std::int32_t> part(static_cast<std::size_t>(n));
  std::vector<std::int64_t> to(static_cast<std::size_t>(n));
  std::vector<double*> values(partition.size());
  std::vector<SparseIndex*> columns(partition.size());
  for (std::size_t i = 0; i < partition.size(); ++i) {
    const std::vector<std::int64_t>& rows = partition[i];
    std::int64_t total = 0;
    for (const std::int64_t r : rows) total += outer[r + 1] - outer[r];
    CheckSparseSize(total, x.cols(),
                    where + ", a subset of " + std::to_string(rows.size()) + " rows");
    SparseRows out(static_cast<Eigen::Index>(rows.size()), x.cols());
    SparseIndex* out_outer = out.outerIndexPtr();
    out_outer[0] = 0;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const auto r = static_cast<std::size_t>(rows[k]);
      part[r] = static_cast<std::int32_t>(i);
      to[r] = out_outer[k];
      out_outer[k + 1] = out_outer[k] + outer[r + 1] - outer[r];
    }
    out.resizeNonZeros(static_cast<Eigen::Index>(total));
    values[i] = out.valuePtr();
    columns[i] = out.innerIndexPtr();
    slices[i].SetRows(std::move(out));
  }
  // Released in steps of 64 KiB of values (1 MiB held 1.5 MB of Adult twice at the peak).
  constexpr std::int64_t kStep = (1 << 16) / sizeof(double);
  const double* value = x.valuePtr();
  const SparseIndex* column = x.innerIndexPtr();
  const char* value_from = reinterpret_cast<const char*>(value);
  const char* column_from = reinterpret_cast<const char*>(column);
  std::int64_t released = 0;
  for (std::int64_t r = 0; r < n; ++r) {
    const auto p = static_cast<std::size_t>(part[static_cast<std::size_t>(r)]);
    const std::int64_t begin = outer[r];
    const std::int64_t count = outer[r + 1] - begin;
    const std::int64_t at = to[static_cast<std::size_t>(r)];
    std::copy_n(value + begin, count, values[p] + at);
    std::copy_n(column + begin, count, columns[p] + at);
    const std::int64_t end = begin + count;
    if (end - released >= kStep || r + 1 == n) {
      value_from = internal::ReleasePages(value_from, reinterpret_cast<const char*>(value + end));
      column_from =
          internal::ReleasePages(column_from, reinterpret_cast<const char*>(column + end));
      released = end;
    }
  }
}

}  // namespace

std::vector<Dataset> SplitByPartition(Dataset&& data, const Partition& partition) {
  std::vector<Dataset> slices(partition.size());
  const std::int64_t n = data.rows();
  // order[k] = the row that goes to position k: the parts one after another.
  std::vector<std::int64_t> order;
  // Rows met in the parts; then, while reordering, rows not yet in place.
  std::vector<char> pending;
  const auto* sparse = std::get_if<SparseRows>(&data.x);
  bool covers = data.y.size() == n && (sparse == nullptr || sparse->isCompressed());
  if (covers) {
    order.reserve(static_cast<std::size_t>(n));
    for (const auto& part : partition) order.insert(order.end(), part.begin(), part.end());
    pending.assign(static_cast<std::size_t>(n), 0);
    covers = static_cast<std::int64_t>(order.size()) == n;
    for (std::size_t k = 0; covers && k < order.size(); ++k) {
      const std::int64_t r = order[k];
      covers = r >= 0 && r < n && pending[static_cast<std::size_t>(r)] == 0;
      if (covers) pending[static_cast<std::size_t>(r)] = 1;
    }
  }
  if (!covers) {
    for (std::size_t i = 0; i < partition.size(); ++i) slices[i] = data.Subset(partition[i]);
    data = Dataset{};
    return slices;
  }
  internal::GiveBackFreeHeap();  // before the slices are written, and once `data` is freed (below)
  for (std::size_t i = 0; i < partition.size(); ++i) {
    Dataset& slice = slices[i];
    slice.name = data.name;
    slice.y.resize(static_cast<Eigen::Index>(partition[i].size()));
    for (std::size_t k = 0; k < partition[i].size(); ++k) {
      slice.y[static_cast<Eigen::Index>(k)] = data.y[partition[i][k]];
    }
  }
  if (sparse != nullptr) {
    pending = {};
    order = {};
    SplitSparseRows(*sparse, partition, slices, data.name.empty() ? "dataset" : data.name);
    data = Dataset{};
    internal::GiveBackFreeHeap();
    return slices;
  }
  DenseRows& x = std::get<DenseRows>(data.x);
  // Rows permuted in place along the permutation's cycles: position j takes row order[j].
  // Row-major: row r is the d values from x.data() + r d.
  const auto d = static_cast<std::size_t>(x.cols());
  std::vector<double> held(d);
  const auto row = [&x, d](std::int64_t r) { return x.data() + static_cast<std::size_t>(r) * d; };
  for (std::int64_t k = 0; k < n; ++k) {
    if (pending[static_cast<std::size_t>(k)] == 0) continue;
    pending[static_cast<std::size_t>(k)] = 0;
    if (order[static_cast<std::size_t>(k)] == k) continue;
    std::copy_n(row(k), d, held.data());
    std::int64_t j = k;
    for (std::int64_t from = order[static_cast<std::size_t>(j)]; from != k;
         from = order[static_cast<std::size_t>(j)]) {
      std::copy_n(row(from), d, row(j));
      j = from;
      pending[static_cast<std::size_t>(j)] = 0;
    }
    std::copy_n(held.data(), d, row(j));
  }
  std::int64_t end = n;
  for (std::size_t i = partition.size(); i-- > 0;) {
    const auto size = static_cast<std::int64_t>(partition[i].size());
    const std::int64_t begin = end - size;
    Dataset& slice = slices[i];
    if (i == 0) {
      slice.SetRows(std::move(x));  // the rows left are part 0's
    } else {
      slice.SetRows(DenseRows(x.bottomRows(size)));
      x.conservativeResize(begin, Eigen::NoChange);  // row-major: a realloc that keeps the top
    }
    end = begin;
  }
  data = Dataset{};
  internal::GiveBackFreeHeap();
  return slices;
}

Dataset Unpartition(const std::vector<Dataset>& slices, const Partition& partition) {
  if (slices.size() != partition.size() || slices.empty()) {
    throw InputError("Unpartition: " + std::to_string(slices.size()) + " slices for " +
                     std::to_string(partition.size()) + " parts");
  }
  std::int64_t rows = 0;
  for (std::size_t i = 0; i < slices.size(); ++i) {
    if (slices[i].rows() != static_cast<std::int64_t>(partition[i].size()) ||
        slices[i].is_sparse() != slices[0].is_sparse() || slices[i].cols() != slices[0].cols()) {
      throw InputError("Unpartition: slice " + std::to_string(i) + " does not match its part");
    }
    rows += slices[i].rows();
  }
  // source[r] = (slice, row in the slice) of original row r.
  std::vector<std::pair<std::int32_t, std::int64_t>> source(static_cast<std::size_t>(rows),
                                                            {-1, 0});
  for (std::size_t i = 0; i < partition.size(); ++i) {
    for (std::size_t k = 0; k < partition[i].size(); ++k) {
      const std::int64_t r = partition[i][k];
      if (r < 0 || r >= rows || source[static_cast<std::size_t>(r)].first >= 0) {
        throw InputError("Unpartition: row " + std::to_string(r) + " missing or held twice");
      }
      source[static_cast<std::size_t>(r)] = {static_cast<std::int32_t>(i),
                                             static_cast<std::int64_t>(k)};
    }
  }
  Dataset out;
  out.name = slices[0].name;
  out.y.resize(rows);
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto [i, k] = source[static_cast<std::size_t>(r)];
    out.y[r] = slices[static_cast<std::size_t>(i)].y[k];
  }
  const std::int64_t cols = slices[0].cols();
  if (!slices[0].is_sparse()) {
    DenseRows x(rows, cols);
    for (std::int64_t r = 0; r < rows; ++r) {
      const auto [i, k] = source[static_cast<std::size_t>(r)];
      x.row(r) = std::get<DenseRows>(slices[static_cast<std::size_t>(i)].x).row(k);
    }
    out.SetRows(std::move(x));
    return out;
  }
  std::vector<const SparseRows*> parts;
  std::vector<SparseRows> compressed(slices.size());  // only for an uncompressed slice
  for (std::size_t i = 0; i < slices.size(); ++i) {
    const auto& s = std::get<SparseRows>(slices[i].x);
    if (s.isCompressed()) {
      parts.push_back(&s);
    } else {
      compressed[i] = s;
      compressed[i].makeCompressed();
      parts.push_back(&compressed[i]);
    }
  }
  std::vector<std::int64_t> outer(static_cast<std::size_t>(rows) + 1, 0);
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto [i, k] = source[static_cast<std::size_t>(r)];
    const SparseRows& s = *parts[static_cast<std::size_t>(i)];
    outer[r + 1] = outer[r] + s.outerIndexPtr()[k + 1] - s.outerIndexPtr()[k];
  }
  CheckSparseSize(outer.back(), cols, slices[0].name.empty() ? "Unpartition" : slices[0].name);
  SparseRows x(rows, cols);
  x.resizeNonZeros(outer.back());
  std::transform(outer.begin(), outer.end(), x.outerIndexPtr(),
                 [](std::int64_t o) { return static_cast<SparseIndex>(o); });
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto [i, k] = source[static_cast<std::size_t>(r)];
    const SparseRows& s = *parts[static_cast<std::size_t>(i)];
    const std::int64_t begin = s.outerIndexPtr()[k];
    const std::int64_t count = outer[r + 1] - outer[r];
    std::copy_n(s.innerIndexPtr() + begin, count, x.innerIndexPtr() + outer[r]);
    std::copy_n(s.valuePtr() + begin, count, x.valuePtr() + outer[r]);
  }
  out.SetRows(std::move(x));
  return out;
}

Partition PartitionEven(std::int64_t rows, int nodes, std::uint64_t seed) {
  RequireRowsForNodes("PartitionEven", rows, nodes);
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(nodes), rows / nodes);
  for (std::int64_t i = 0; i < rows % nodes; ++i) ++sizes[static_cast<std::size_t>(i)];
  return AssignBlocks(sizes, rows, seed);
}

Partition PartitionProportional(std::int64_t rows, const std::vector<double>& proportions,
                                std::uint64_t seed) {
  const auto nodes = static_cast<std::int64_t>(proportions.size());
  RequireRowsForNodes("PartitionProportional", rows, nodes);
  for (std::size_t i = 0; i < proportions.size(); ++i) {
    if (!(proportions[i] > 0.0) || !std::isfinite(proportions[i])) {
      throw InputError("PartitionProportional: proportion of node " + std::to_string(i) +
                       " must be positive and finite, got " + std::to_string(proportions[i]));
    }
  }
  const std::vector<std::int64_t> sizes = LargestRemainderSizes(rows, proportions);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) {
      throw InputError("PartitionProportional: node " + std::to_string(i) +
                       " gets no rows (share " + std::to_string(proportions[i]) +
                       " is too small for " + std::to_string(rows) + " rows)");
    }
  }
  return AssignBlocks(sizes, rows, seed);
}

Partition PartitionDirichlet(std::int64_t rows, int nodes, double alpha, std::uint64_t seed) {
  RequireRowsForNodes("PartitionDirichlet", rows, nodes);
  if (!(alpha > 0.0) || !std::isfinite(alpha)) {
    throw InputError("PartitionDirichlet: alpha must be positive and finite, got " +
                     std::to_string(alpha));
  }
  Stream s(seed, 0, kDirichletRound, Purpose::kPartition);
  std::vector<double> shares(static_cast<std::size_t>(nodes));
  for (double& g : shares) g = s.Gamma(alpha);
  // For a tiny alpha every draw may underflow to 0: then there is no preference, share evenly.
  if (std::accumulate(shares.begin(), shares.end(), 0.0) == 0.0) {
    std::fill(shares.begin(), shares.end(), 1.0);
  }
  std::vector<std::int64_t> sizes = LargestRemainderSizes(rows, shares);
  for (std::int64_t& size : sizes) {
    if (size > 0) continue;
    auto largest = std::max_element(sizes.begin(), sizes.end());
    --*largest;
    size = 1;
  }
  return AssignBlocks(sizes, rows, seed);
}

Partition LoadPartition(const std::string& path, std::int64_t rows, int nodes) {
  if (nodes < 1) ThrowAt(path, 0, "need at least one node");
  const std::string text = internal::ReadWholeFile(path);
  internal::LineReader lines(text);
  std::string_view line;
  std::vector<std::string_view> fields;
  Partition p(static_cast<std::size_t>(nodes));
  std::int64_t row = 0;
  while (lines.Next(line)) {
    internal::SplitFields(line, ' ', fields);
    if (fields.size() != 1) {
      ThrowAt(path, lines.number(),
              "expected one node id, found " + std::to_string(fields.size()) + " fields");
    }
    if (row == rows) {
      ThrowAt(path, lines.number(),
              "more lines than the " + std::to_string(rows) + " training rows (one line per row)");
    }
    const std::int64_t node = internal::ParseInt(fields[0], path, lines.number(), "node id");
    if (node < 0 || node >= nodes) {
      ThrowAt(
          path, lines.number(),
          "node id " + std::to_string(node) + " out of range [0, " + std::to_string(nodes) + ")");
    }
    p[static_cast<std::size_t>(node)].push_back(row++);
  }
  if (row != rows) {
    ThrowAt(path, 0,
            "has " + std::to_string(row) + " lines, expected one per training row (" +
                std::to_string(rows) + ")");
  }
  for (int i = 0; i < nodes; ++i) {
    if (p[static_cast<std::size_t>(i)].empty()) {
      ThrowAt(path, 0, "node " + std::to_string(i) + " holds no rows");
    }
  }
  return p;
}

void AddBiasFeature(Dataset& data, double value) {
  if (auto* dense = std::get_if<DenseRows>(&data.x)) {
    DenseRows widened(dense->rows(), dense->cols() + 1);
    widened.leftCols(dense->cols()) = *dense;
    widened.col(dense->cols()).setConstant(value);
    *dense = std::move(widened);
    return;
  }
  auto& sparse = std::get<SparseRows>(data.x);
  sparse.makeCompressed();
  const std::int64_t rows = sparse.rows();
  const std::int64_t cols = sparse.cols();
  CheckSparseSize(sparse.nonZeros() + rows, cols + 1,
                  (data.name.empty() ? std::string("data") : data.name) + " with the intercept");
  const SparseIndex* outer = sparse.outerIndexPtr();
  const SparseIndex* inner = sparse.innerIndexPtr();
  if (ColumnsIncreasing(sparse)) {
    // Row by row into the widened arrays: the row's entries, then the intercept's (its column
    // is the last, so the columns stay increasing). The result is the triplet path's, below.
    SparseRows widened(rows, cols + 1);
    widened.resizeNonZeros(sparse.nonZeros() + rows);
    SparseIndex* wo = widened.outerIndexPtr();
    SparseIndex* wi = widened.innerIndexPtr();
    double* wv = widened.valuePtr();
    wo[0] = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
      const SparseIndex begin = outer[r];
      const SparseIndex count = outer[r + 1] - begin;
      SparseIndex at = wo[r];
      std::copy_n(inner + begin, count, wi + at);
      std::copy_n(sparse.valuePtr() + begin, count, wv + at);
      at += count;
      wi[at] = static_cast<SparseIndex>(cols);
      wv[at] = value;
      wo[r + 1] = at + 1;
    }
    data.SetRows(std::move(widened));
    return;
  }
  // Rows out of column order (only arrays written through Eigen's raw pointers): triplets sort
  // them and sum repeated columns.
  std::vector<Eigen::Triplet<double, SparseIndex>> entries;
  entries.reserve(static_cast<std::size_t>(sparse.nonZeros() + sparse.rows()));
  for (std::int64_t r = 0; r < sparse.outerSize(); ++r) {
    for (SparseRows::InnerIterator it(sparse, r); it; ++it)
      entries.emplace_back(static_cast<SparseIndex>(r), it.col(), it.value());
    entries.emplace_back(static_cast<SparseIndex>(r), static_cast<SparseIndex>(cols), value);
  }
  SparseRows widened(sparse.rows(), sparse.cols() + 1);
  widened.setFromTriplets(entries.begin(), entries.end());
  data.SetRows(std::move(widened));
}

}  // namespace dpadmm
