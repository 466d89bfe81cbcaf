// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/data/standardization.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "dpadmm/core/error.h"

namespace dpadmm {
namespace {

const DenseRows& DenseOrThrow(const Dataset& rows, const char* what) {
  const auto* dense = std::get_if<DenseRows>(&rows.x);
  if (dense == nullptr) {
    throw InputError((rows.name.empty() ? std::string("the data") : rows.name) + ": " + what +
                     " needs dense rows: centring would turn every stored zero of the sparse "
                     "rows into a value (use global-max-norm or public-bounds for sparse data)");
  }
  return *dense;
}

}  // namespace

FeatureMoments ComputeFeatureMoments(const Dataset& rows) {
  const DenseRows& x = DenseOrThrow(rows, "data.scaling 'standardize'");
  const auto d = static_cast<std::size_t>(x.cols());
  FeatureMoments m;
  m.rows = x.rows();
  m.mean.assign(d, 0.0);
  m.m2.assign(d, 0.0);
  if (m.rows == 0) return m;
  // Each feature's sums run over the rows in order (the loops over j only interleave features).
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    for (std::size_t j = 0; j < d; ++j) m.mean[j] += x(r, static_cast<Eigen::Index>(j));
  }
  const auto n = static_cast<double>(m.rows);
  for (double& mean : m.mean) mean /= n;
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    for (std::size_t j = 0; j < d; ++j) {
      const double dev = x(r, static_cast<Eigen::Index>(j)) - m.mean[j];
      m.m2[j] += dev * dev;
    }
  }
  return m;
}

FeatureMoments CombineFeatureMoments(const std::vector<FeatureMoments>& parts) {
  FeatureMoments total;
  for (const FeatureMoments& part : parts) {
    if (part.rows == 0) continue;
    if (total.rows == 0) {
      total = part;
      continue;
    }
    if (part.mean.size() != total.mean.size() || part.m2.size() != total.mean.size()) {
      throw InputError("standardize: the parts' moments have " + std::to_string(part.mean.size()) +
                       " and " + std::to_string(total.mean.size()) + " features");
    }
    const auto na = static_cast<double>(total.rows);
    const auto nb = static_cast<double>(part.rows);
    const double n = na + nb;
    for (std::size_t j = 0; j < total.mean.size(); ++j) {
      const double delta = part.mean[j] - total.mean[j];
      total.mean[j] += delta * (nb / n);
      total.m2[j] += part.m2[j] + delta * delta * (na * nb / n);
    }
    total.rows += part.rows;
  }
  return total;
}

FeatureStandardization StandardizationFromMoments(const FeatureMoments& moments) {
  if (moments.rows <= 0) throw InputError("standardize: the training data have no rows");
  FeatureStandardization s;
  s.mean = moments.mean;
  s.scale.resize(moments.m2.size());
  const auto n = static_cast<double>(moments.rows);
  for (std::size_t j = 0; j < moments.m2.size(); ++j) {
    const double sd = std::sqrt(moments.m2[j] / n);
    s.scale[j] = sd > 0.0 && std::isfinite(sd) ? sd : 1.0;
  }
  return s;
}

void StandardizeRows(Dataset& data, const FeatureStandardization& s, std::int64_t dims) {
  const auto features = static_cast<std::int64_t>(s.mean.size());
  if (static_cast<std::int64_t>(s.scale.size()) != features || features > data.cols()) {
    throw InputError("standardize: " + std::to_string(s.mean.size()) + " means and " +
                     std::to_string(s.scale.size()) + " scales for data with " +
                     std::to_string(data.cols()) + " columns");
  }
  if (dims < data.cols()) {
    throw InputError("standardize: dims " + std::to_string(dims) + " is below the column count " +
                     std::to_string(data.cols()));
  }
  (void)DenseOrThrow(data, "data.scaling 'standardize'");
  auto& x = std::get<DenseRows>(data.x);
  const double root = std::sqrt(static_cast<double>(std::max<std::int64_t>(dims, 1)));
  for (Eigen::Index j = 0; j < x.cols(); ++j) {
    auto col = x.col(j);
    if (j < features) {
      const double mean = s.mean[static_cast<std::size_t>(j)];
      const double divisor = s.scale[static_cast<std::size_t>(j)] * root;
      col = ((col.array() - mean) / divisor).matrix();
    } else {
      col /= root;
    }
  }
}

bool HasRawUnits(const Dataset& rows) {
  const auto* dense = std::get_if<DenseRows>(&rows.x);
  if (dense == nullptr || dense->size() == 0) return false;
  // !(|x| <= 1) also holds for NaN.
  return !(dense->array().abs() <= 1.0).all();
}

}  // namespace dpadmm
