// SPDX-License-Identifier: Apache-2.0
// Per-feature standardization (the standardize and dp-standardize scalings): every feature is
// centred by a mean and divided by a scale, then the whole row is divided by the public factor
// sqrt(d) (d: the final column count, the intercept column included) and clipped to norm 1 by
// ClipRows (preprocessing.h). Standardized features have unit variance, so a training row's
// expected squared norm is about d before the division and about 1 after it; clipping touches
// only the rows above that (outliers are shrunk onto the unit sphere, never dropped).
//
// The statistics come from per-part moments combined in part order, so the same parts in the
// same order give the same bits wherever they are computed (one process, MPI ranks):
//
//   std::vector<FeatureMoments> parts = {ComputeFeatureMoments(a), ComputeFeatureMoments(b)};
//   FeatureStandardization s = StandardizationFromMoments(CombineFeatureMoments(parts));
//   StandardizeRows(train, s, dims);   // and the same s for the test rows
//
// Centring turns every stored zero of a sparse row into a value: sparse rows are refused
// (InputError) rather than densified.
#pragma once

#include <cstdint>
#include <vector>

#include "dpadmm/data/dataset.h"

namespace dpadmm {

// The moments of each feature over one part of the rows: the row count, the mean and the sum of
// squared deviations from it (M2).
struct FeatureMoments {
  std::int64_t rows = 0;
  std::vector<double> mean, m2;
};

// The moments of `rows` (dense), each feature's in row order (two passes: the mean, then the
// squared deviations from it). Throws InputError for sparse rows, naming the set.
FeatureMoments ComputeFeatureMoments(const Dataset& rows);

// The moments of the union of `parts` (all with the same feature count), combined left to right
// by the pairwise update of Chan, Golub and LeVeque (1979): n = nA + nB, delta = meanB - meanA,
// mean = meanA + delta nB / n, M2 = M2A + M2B + delta^2 nA nB / n. Parts with no row are skipped.
FeatureMoments CombineFeatureMoments(const std::vector<FeatureMoments>& parts);

// What StandardizeRows maps each raw feature j by: (x_j - mean[j]) / scale[j], scale[j] > 0.
struct FeatureStandardization {
  std::vector<double> mean, scale;
};

// mean = the moments' mean; scale = the population standard deviation sqrt(M2 / rows) (what
// scikit-learn's StandardScaler divides by), or 1 for a feature whose deviation is 0 (a
// constant feature is centred to 0 and left unscaled). Throws InputError for no rows.
FeatureStandardization StandardizationFromMoments(const FeatureMoments& moments);

// Dense rows: x_j <- (x_j - mean[j]) / (scale[j] sqrt(dims)) for the first mean.size() columns;
// the columns after them (an intercept column appended before) are divided by sqrt(dims) only.
// Throws InputError for sparse rows, a standardization that does not fit the columns, or dims
// below the column count. Rows are not clipped here (ClipRows).
void StandardizeRows(Dataset& data, const FeatureStandardization& s, std::int64_t dims);

// "Raw units": dense rows holding a value outside [-1, 1] (NaN counts as outside). The auto
// scaling standardizes CSV training data with raw units (run/run_spec.h, EffectiveScaling).
bool HasRawUnits(const Dataset& rows);

}  // namespace dpadmm
