// SPDX-License-Identifier: Apache-2.0
// Reproductions of 001's figures (ADMM sharing over distributed features), registered as
// subcommands of dpadmm_repro (bench/repro.cpp): fig1-001, fig2-001, fig3-001, fig3b-001.
// See bench/README.md, "001: ADMM sharing over distributed features".
#pragma once

#include <string>

namespace dpadmm::repro {

struct SharingReproOptions {
  std::string data;  // directory holding a9a/
  std::string out;   // output directory
  int epochs = 0;    // 0 = the figure's default
  int runs = 0;      // fig3-001: seeds per noise level; 0 = default
};

// 001 Fig. 1: a9a, 2 parties (66 / 57 features): ADMM sharing vs SGD per epoch.
void Fig1_001(const SharingReproOptions& o);
// 001 Fig. 2: generated sparse high-dimensional data in place of gisette (6,000 / 1,000 rows,
// 5,000 features, 3 parties 2,000 / 2,000 / 1,000), plus a sweep over the feature count.
void Fig2_001(const SharingReproOptions& o);
// 001 Fig. 3: test log loss of DP ADMM sharing on a9a under several noise levels, against the
// centralized (all features) and local-only baselines.
void Fig3_001(const SharingReproOptions& o);
// 001 Figs. 2(b) and 3(b): the same on the generated gisette-like set of fig2-001.
void Fig3b_001(const SharingReproOptions& o);

}  // namespace dpadmm::repro
