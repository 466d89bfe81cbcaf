// SPDX-License-Identifier: Apache-2.0
// Learning over vertically partitioned features: ADMM sharing (paper 001, Algorithm 1, parallel
// updates (6)-(8)), its differentially private version (16), and the SGD baseline of 001's
// experiments. Parties m = 1..M hold column blocks D_m (N x d_m) of the same N training rows; a
// coordinator holds the labels. The problem is
//
//     min_x  (1/N) sum_n log(1 + exp(-y_n sum_m (D_m x_m)_n))  +  lambda sum_m ||x_m||^2 / 2.
//
// The family runs through the one experiment API (dpadmm/run/run.h): select it with the
// algorithm of a RunSpec,
//
//   dpadmm::RunSpec spec = dpadmm::RunSpec::Defaults(dpadmm::Algorithm::kSharing);
//   spec.algorithm.As<dpadmm::SharingParams>().dp = true;
//   dpadmm::RunSummary s = dpadmm::Experiment(spec).Run(&observer);
//
// This header is kept for code that included it; it only brings in that API.
#pragma once

#include "dpadmm/run/run.h"
#include "dpadmm/run/run_spec.h"
