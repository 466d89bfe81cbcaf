// SPDX-License-Identifier: Apache-2.0
// dpadmm_repro_pdml: reproductions of paper 000 (PDML) -- see bench/README.md, section "PDML".
//
//   dpadmm_repro_pdml validate-000   choose a and beta per data set on a validation split
//   dpadmm_repro_pdml table1-000     Table I: test accuracy on the seven Raetsch sets
//   dpadmm_repro_pdml fig3-000       Fig. 3: consensus and empirical risk on Adult
//   dpadmm_repro_pdml fig4-000       Fig. 4: effect of R, of the decay rate and of eps (Adult)
//   dpadmm_repro_pdml all            the four, in this order
//
// Every subcommand writes CSV (+ a markdown table, + a gnuplot script and PNG for the figures)
// into bench/results/ (change with --out). table1/fig3/fig4 read the parameters chosen by
// validate-000 from <out>/validate-000_choice.csv (run validate-000 first; `all` does).
// A separate executable rather than a subcommand of dpadmm_repro keeps the shared file untouched.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "dpadmm/core/error.h"
#include "dpadmm/data/loaders.h"
#include "dpadmm/run/run.h"

namespace {

using dpadmm::Dataset;
using dpadmm::DenseRows;
using dpadmm::RunSpec;
using dpadmm::RunSummary;

struct Options {
  std::string data;
  std::string out = DPADMM_REPRO_OUT;
  int splits = 10;  // Table I: seeded 70/30 splits averaged
  int iterations = 100;
  int threads = 0;                    // concurrent runs; 0 = hardware concurrency
  int seeds = 1;                      // fig3/fig4: runs averaged per setting
  bool bias = false;                  // append an intercept feature
  double V = 0.5;                     // initial std of the primal noise (000 does not state it)
  std::vector<std::string> datasets;  // default: all of the subcommand's
};

const std::vector<std::string> kTableSets = {"german", "image",   "ringnorm", "banana",
                                             "splice", "twonorm", "waveform"};

// Table I of 000 (test accuracy, %), columns in the order of kConfigs below.
const std::map<std::string, std::vector<double>> kPaperTable = {
    {"german", {75.00, 71.00, 74.00, 69.67, 64.00, 74.33, 67.67}},
    {"image", {75.56, 70.13, 72.84, 69.33, 63.10, 70.45, 65.50}},
    {"ringnorm", {77.38, 73.44, 76.82, 73.74, 66.18, 75.77, 70.23}},
    {"banana", {58.22, 54.33, 56.06, 54.28, 43.11, 55.89, 54.44}},
    {"splice", {56.60, 46.84, 56.60, 54.94, 46.39, 55.83, 52.50}},
    {"twonorm", {97.90, 96.59, 97.38, 96.51, 92.28, 97.41, 94.77}},
    {"waveform", {88.93, 84.60, 87.93, 84.07, 80.47, 87.67, 81.73}},
};

// A privacy configuration of Table I. eps = 0: no randomization. Phase 2 (R > 0) also turns on
// the primal perturbation (V from --V, decay 0.8): Table I's "Perturbed ADMM" columns; the
// "Modified loss" columns (R = 0) have the debiased loss only.
struct Config {
  std::string name;
  double eps = 0.0, R = 0.0;
  bool phase2 = false;
};
const std::vector<Config> kConfigs = {
    {"no privacy", 0.0, 0.0, false}, {"eps=0.4,R=0", 0.4, 0.0, false},
    {"eps=1,R=0", 1.0, 0.0, false},  {"eps=0.4,R=1", 0.4, 1.0, true},
    {"eps=0.4,R=9", 0.4, 9.0, true}, {"eps=1,R=1", 1.0, 1.0, true},
    {"eps=1,R=9", 1.0, 9.0, true},
};

std::string Fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string Elapsed(std::chrono::steady_clock::time_point t0) {
  return Fmt("%.0f s",
             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

void WriteText(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// Runs `jobs` specs, `threads` at a time, each on the serial engine (results do not depend on
// the schedule: every run is seeded).
struct Outcome {
  RunSummary summary;
  std::vector<dpadmm::RoundMetrics> rounds;
};
struct Recorder : dpadmm::RunObserver {
  std::vector<dpadmm::RoundMetrics>* rounds;
  void OnRound(const dpadmm::RoundMetrics& m) override { rounds->push_back(m); }
};
std::vector<Outcome> RunAll(const Options& o, const std::vector<RunSpec>& specs) {
  std::vector<Outcome> out(specs.size());
  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;
  std::string error;
  const int threads = o.threads > 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  auto worker = [&] {
    for (std::size_t k; (k = next++) < specs.size();) {
      try {
        Recorder r;
        r.rounds = &out[k].rounds;
        out[k].summary = dpadmm::RunExperiment(specs[k], &r);
        if (out[k].summary.outcome == dpadmm::RunOutcome::kDiverged) {
          throw std::runtime_error("run diverged: " + out[k].summary.message);
        }
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (error.empty()) error = e.what();
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (!error.empty()) throw std::runtime_error(error);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Data: one pooled file per Raetsch set (realisation 1's train + test = the whole set for the
// sets with splits; splice and twonorm come as one file), split 70/30 by seed as in 000.

Dataset Concat(const Dataset& a, const Dataset& b) {
  const auto& xa = std::get<DenseRows>(a.x);
  const auto& xb = std::get<DenseRows>(b.x);
  Dataset c;
  DenseRows x(xa.rows() + xb.rows(), xa.cols());
  x.topRows(xa.rows()) = xa;
  x.bottomRows(xb.rows()) = xb;
  c.x = std::move(x);
  c.y.resize(a.y.size() + b.y.size());
  c.y << a.y, b.y;
  return c;
}

void WriteAsc(const Dataset& d, const std::string& data_path, const std::string& labels_path) {
  std::ofstream xs(data_path), ys(labels_path);
  const auto& x = std::get<DenseRows>(d.x);
  char b[40];
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    for (Eigen::Index c = 0; c < x.cols(); ++c) {
      std::snprintf(b, sizeof b, " %.17g", x(r, c));
      xs << b;
    }
    xs << '\n';
    ys << (d.y[r] > 0 ? "1" : "-1") << '\n';
  }
}

void WriteLibsvm(const Dataset& d, const std::string& path) {
  std::ofstream out(path);
  const auto& x = std::get<dpadmm::SparseRows>(d.x);
  char b[48];
  for (Eigen::Index r = 0; r < x.outerSize(); ++r) {
    out << (d.y[r] > 0 ? "+1" : "-1");
    for (dpadmm::SparseRows::InnerIterator it(x, r); it; ++it) {
      std::snprintf(b, sizeof b, " %lld:%.17g", static_cast<long long>(it.col() + 1), it.value());
      out << b;
    }
    out << '\n';
  }
}

struct Pooled {
  std::string data, labels;
  std::int64_t rows = 0, cols = 0;
};

Pooled PoolSet(const Options& o, const std::string& name, const std::string& dir) {
  const std::string base = o.data + "/" + name + "/" + name;
  Pooled p;
  if (name == "splice" || name == "twonorm") {
    p.data = base + "_data.asc";
    p.labels = base + "_labels.asc";
    const Dataset d = dpadmm::LoadAsc(p.data, p.labels);
    p.rows = d.rows();
    p.cols = d.cols();
    return p;
  }
  const Dataset all =
      Concat(dpadmm::LoadAsc(base + "_train_data_1.asc", base + "_train_labels_1.asc"),
             dpadmm::LoadAsc(base + "_test_data_1.asc", base + "_test_labels_1.asc"));
  p.data = dir + "/" + name + "_pooled_data.asc";
  p.labels = dir + "/" + name + "_pooled_labels.asc";
  WriteAsc(all, p.data, p.labels);
  p.rows = all.rows();
  p.cols = all.cols();
  return p;
}

std::string TempDir() {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("dpadmm_pdml_" + std::to_string(::getpid())))
          .string();
  std::filesystem::create_directories(dir);
  return dir;
}

// 10 servers on a connected random graph with 13 links, equal shares (000 Section VI-A).
RunSpec PdmlSpec(const Options& o, double a, double beta) {
  RunSpec s;
  s.graph.topology = dpadmm::Topology::kRandom;
  s.graph.nodes = 10;
  s.graph.edges = 13;
  s.partition.kind = dpadmm::PartitionKind::kEven;
  s.algorithm.Select(dpadmm::Algorithm::kPdml);
  s.algorithm.C = 1.0;  // 000 (1): (1/m_i) sum l + (a/n) N(w_i)
  s.algorithm.rho = a;
  s.algorithm.eta = beta;
  s.algorithm.As<dpadmm::PdmlParams>().decay = 0.8;
  s.data.add_bias = o.bias;
  s.iterations = o.iterations;
  s.engine = dpadmm::runtime::EngineKind::kSerial;
  s.threads = 1;
  s.compute_optimum = false;
  s.metrics_every = 0;
  return s;
}

void SetConfig(RunSpec& s, const Config& c, double V) {
  s.algorithm.As<dpadmm::PdmlParams>().label_eps = c.eps;
  s.algorithm.As<dpadmm::PdmlParams>().R = c.R;
  s.algorithm.As<dpadmm::PdmlParams>().V = c.phase2 ? V : 0.0;
}

RunSpec AdultSpec(const Options& o, double a, double beta) {
  RunSpec s = PdmlSpec(o, a, beta);
  s.data.source = dpadmm::DataSource::kAdult;
  s.data.train_path = o.data + "/adult/adult.data";
  s.data.test_path = o.data + "/adult/adult.test";
  return s;
}

std::vector<std::string> SetsOr(const Options& o, const std::vector<std::string>& all) {
  return o.datasets.empty() ? all : o.datasets;
}

// ---------------------------------------------------------------------------------------------
// validate-000: a and beta per data set.
//
// Validation data: the training part of split 1 (seed 1), split again 80/20 (seed 101); the test
// part is never touched. For every a of the grid, beta(a) is the value of the beta grid whose
// non-private run ends closest to the centralized optimum w* (max_i ||w_i - w*|| / ||w*||) after
// the run's iterations (beta only changes the speed of convergence, not the fixed point). Then a is
// the value with the best validation accuracy averaged over the seven Table I configurations
// (Adult: no privacy, eps = 1 with R = 0 and with R = 1), each run with beta(a); ties go to the
// larger a.

const std::vector<double> kAGrid = {1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0};
const std::vector<double> kBetaGrid = {0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3};

// Output name suffix: "_bias" with the intercept feature, "_V<v>" for a non-default --V.
std::string Suffix(const Options& o) {
  return std::string(o.bias ? "_bias" : "") + (o.V != 0.5 ? "_V" + Fmt("%g", o.V) : "");
}

std::string ChoicePath(const Options& o) {
  return o.out + "/validate-000_choice" + std::string(o.bias ? "_bias" : "") + ".csv";
}

void Validate(const Options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::string> sets = SetsOr(o, kTableSets);
  if (o.datasets.empty()) sets.push_back("adult");
  const std::string dir = TempDir();
  std::ostringstream csv, choice, md;
  csv << "dataset,bias,a,beta,config,validation_accuracy,distance_to_optimum\n";
  choice << "dataset,bias,a,beta\n";
  md << "| data set | a: beta(a) (max_i dist(w_i, w*) / norm(w*) after " << o.iterations
     << " it.) | a: validation accuracy, mean over configs | chosen a | chosen beta "
        "|\n|---|---|---|---|---|\n";
  for (const std::string& name : sets) {
    // The validation pool: split 1's training rows, raw (no normalisation, no bias column).
    RunSpec raw;
    if (name == "adult") {
      raw = AdultSpec(o, 1.0, 1.0);
    } else {
      const Pooled p = PoolSet(o, name, dir);
      raw = PdmlSpec(o, 1.0, 1.0);
      raw.data.source = dpadmm::DataSource::kAsc;
      raw.data.train_path = p.data;
      raw.data.train_labels_path = p.labels;
      raw.data.test_fraction = 0.3;
    }
    raw.seed = 1;
    raw.data.normalize = false;
    raw.data.add_bias = false;
    const Dataset train = dpadmm::Experiment(raw).train();
    // Sparse data (Adult) goes to a LIBSVM file, dense data to .asc files.
    const bool sparse = train.is_sparse();
    const std::string vd = dir + "/" + name + (sparse ? "_val.libsvm" : "_val_data.asc");
    const std::string vl = dir + "/" + name + "_val_labels.asc";
    if (sparse) {
      WriteLibsvm(train, vd);
    } else {
      WriteAsc(train, vd, vl);
    }
    const auto spec = [&](double a, double beta) {
      RunSpec s = PdmlSpec(o, a, beta);
      s.data.source = sparse ? dpadmm::DataSource::kLibsvm : dpadmm::DataSource::kAsc;
      s.data.train_path = vd;
      if (sparse) {
        s.data.num_features = train.cols();
      } else {
        s.data.train_labels_path = vl;
      }
      s.data.test_fraction = 0.2;
      s.seed = 101;
      return s;
    };
    std::vector<Config> configs = kConfigs;
    if (name == "adult") configs = {kConfigs[0], kConfigs[2], kConfigs[5]};
    // Stage 1: beta(a) for every a, by the non-private run's distance to the
    // centralized optimum after the run's iterations.
    std::vector<RunSpec> beta_specs;
    for (double a : kAGrid) {
      for (double beta : kBetaGrid) {
        RunSpec s = spec(a, beta);
        s.compute_optimum = true;
        SetConfig(s, kConfigs[0], 0.0);
        beta_specs.push_back(s);
      }
    }
    const std::vector<Outcome> beta_runs = RunAll(o, beta_specs);
    std::vector<double> beta_of_a;
    std::ostringstream b_cell;
    std::size_t k = 0;
    for (double a : kAGrid) {
      double best_beta = kBetaGrid[0], best_gap = 1e300;
      for (double beta : kBetaGrid) {
        const RunSummary& r = beta_runs[k++].summary;
        const double gap = r.final.distance_to_optimum;
        csv << name << ',' << o.bias << ',' << a << ',' << beta << ",\"no privacy\","
            << 1.0 - r.final.test_error << ',' << gap << '\n';
        if (gap < best_gap) best_gap = gap, best_beta = beta;
      }
      beta_of_a.push_back(best_beta);
      b_cell << (b_cell.tellp() > 0 ? ", " : "") << a << ": " << best_beta << " ("
             << Fmt("%.1e", best_gap) << ")";
    }
    // Stage 2: a, by the validation accuracy averaged over the configurations, each a with its
    // beta(a).
    std::vector<RunSpec> specs;
    for (std::size_t j = 0; j < kAGrid.size(); ++j) {
      for (const Config& c : configs) {
        RunSpec s = spec(kAGrid[j], beta_of_a[j]);
        SetConfig(s, c, o.V);
        specs.push_back(s);
      }
    }
    const std::vector<Outcome> runs = RunAll(o, specs);
    double best_a = kAGrid[0], best_acc = -1.0, best_beta = beta_of_a[0];
    std::ostringstream a_cell;
    k = 0;
    for (std::size_t j = 0; j < kAGrid.size(); ++j) {
      double mean = 0.0;
      for (const Config& c : configs) {
        const double acc = 1.0 - runs[k++].summary.final.test_error;
        csv << name << ',' << o.bias << ',' << kAGrid[j] << ',' << beta_of_a[j] << ",\"" << c.name
            << "\"," << acc << ",\n";
        mean += acc / static_cast<double>(configs.size());
      }
      a_cell << (a_cell.tellp() > 0 ? ", " : "") << kAGrid[j] << ": "
             << Fmt("%.2f%%", 100.0 * mean);
      if (mean >= best_acc - 1e-12) best_acc = mean, best_a = kAGrid[j], best_beta = beta_of_a[j];
    }
    choice << name << ',' << o.bias << ',' << best_a << ',' << best_beta << '\n';
    md << "| " << name << " | " << b_cell.str() << " | " << a_cell.str() << " | **" << best_a
       << "** | **" << best_beta << "** |\n";
    std::fprintf(stderr, "validate-000 %s: a = %g, beta = %g (%s)\n", name.c_str(), best_a,
                 best_beta, Elapsed(t0).c_str());
  }
  const std::string suffix = o.bias ? "_bias" : "";
  WriteText(o.out + "/validate-000" + suffix + ".csv", csv.str());
  WriteText(ChoicePath(o), choice.str());
  WriteText(o.out + "/validate-000" + suffix + "_table.md", md.str());
  std::cout << "## validate-000" << (o.bias ? " (bias feature)" : "") << "\n\n"
            << md.str() << "\n(validate-000: " << Elapsed(t0) << ")\n\n";
  std::filesystem::remove_all(dir);
}

std::pair<double, double> Chosen(const Options& o, const std::string& name) {
  std::ifstream in(ChoicePath(o));
  if (!in) {
    throw dpadmm::InputError(ChoicePath(o) + ": missing; run `dpadmm_repro_pdml validate-000" +
                             std::string(o.bias ? " --bias" : "") + "` first");
  }
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string set, bias, a, beta;
    std::getline(ss, set, ',');
    std::getline(ss, bias, ',');
    std::getline(ss, a, ',');
    std::getline(ss, beta, ',');
    if (set == name) return {std::stod(a), std::stod(beta)};
  }
  throw dpadmm::InputError(ChoicePath(o) + ": no entry for " + name + "; run validate-000 on it");
}

// ---------------------------------------------------------------------------------------------
// table1-000

void Table1(const Options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::string> sets = SetsOr(o, kTableSets);
  const std::string dir = TempDir();
  std::vector<RunSpec> specs;
  struct Key {
    std::string set;
    int split;
    std::size_t config;
  };
  std::vector<Key> keys;
  std::map<std::string, Pooled> pooled;
  for (const std::string& name : sets) {
    pooled[name] = PoolSet(o, name, dir);
    const auto [a, beta] = Chosen(o, name);
    for (int split = 1; split <= o.splits; ++split) {
      for (std::size_t c = 0; c < kConfigs.size(); ++c) {
        RunSpec s = PdmlSpec(o, a, beta);
        s.data.source = dpadmm::DataSource::kAsc;
        s.data.train_path = pooled[name].data;
        s.data.train_labels_path = pooled[name].labels;
        s.data.test_fraction = 0.3;
        s.seed = static_cast<std::uint64_t>(split);
        SetConfig(s, kConfigs[c], o.V);
        specs.push_back(s);
        keys.push_back({name, split, c});
      }
    }
  }
  const std::vector<Outcome> runs = RunAll(o, specs);
  const std::string suffix = Suffix(o);
  std::ostringstream csv;
  csv << "dataset,bias,a,beta,V,decay,split,config,eps,R,test_accuracy,train_rows,test_rows\n";
  std::map<std::string, std::vector<std::vector<double>>> acc;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const Key& key = keys[k];
    const RunSpec& s = specs[k];
    const double a = 1.0 - runs[k].summary.final.test_error;
    acc[key.set].resize(kConfigs.size());
    acc[key.set][key.config].push_back(a);
    csv << key.set << ',' << o.bias << ',' << s.algorithm.rho << ',' << s.algorithm.eta << ','
        << s.algorithm.As<dpadmm::PdmlParams>().V << ','
        << s.algorithm.As<dpadmm::PdmlParams>().decay << ',' << key.split << ",\""
        << kConfigs[key.config].name << "\"," << kConfigs[key.config].eps << ','
        << kConfigs[key.config].R << ',' << a << ',' << runs[k].summary.info.train_rows << ','
        << runs[k].summary.info.test_rows << '\n';
  }
  WriteText(o.out + "/table1-000" + suffix + ".csv", csv.str());
  std::ostringstream md;
  md << "Test accuracy (%), ours (mean [min, max] over " << o.splits << " seeded 70/30 splits) / "
     << "000 Table I. " << o.iterations << " iterations, 10 servers, random graph with 13 links, "
     << "Phase 2 columns (R > 0) with V = " << o.V
     << ", decay 0.8; intercept feature: " << (o.bias ? "yes" : "no")
     << ".\n\n| data set (rows, a, beta) |";
  for (const Config& c : kConfigs) md << ' ' << c.name << " |";
  md << "\n|---|";
  for (std::size_t c = 0; c < kConfigs.size(); ++c) md << "---|";
  md << '\n';
  for (const std::string& name : sets) {
    const auto [a, beta] = Chosen(o, name);
    md << "| " << name << " (" << pooled[name].rows << ", " << a << ", " << beta << ") |";
    for (std::size_t c = 0; c < kConfigs.size(); ++c) {
      const auto& v = acc[name][c];
      double mean = 0.0;
      for (double x : v) mean += x / static_cast<double>(v.size());
      const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
      md << ' ' << Fmt("%.2f", 100.0 * mean);
      if (v.size() > 1)
        md << " [" << Fmt("%.1f", 100.0 * *lo) << ", " << Fmt("%.1f", 100.0 * *hi) << "]";
      md << " / " << Fmt("%.2f", kPaperTable.at(name)[c]) << " |";
    }
    md << '\n';
  }
  WriteText(o.out + "/table1-000" + suffix + "_table.md", md.str());
  std::cout << "## table1-000\n\n"
            << md.str() << "\n(table1-000: " << runs.size() << " runs, " << Elapsed(t0) << ")\n\n";
  std::filesystem::remove_all(dir);
}

// ---------------------------------------------------------------------------------------------
// fig3-000 / fig4-000 (Adult)

struct Series {
  std::string name;
  RunSpec spec;
  std::vector<Outcome> runs;  // one per seed
};

// Mean over seeds of a per-round field.
template <class F>
std::vector<double> MeanCurve(const Series& s, F field) {
  std::vector<double> m(s.runs[0].rounds.size(), 0.0);
  for (const Outcome& r : s.runs) {
    for (std::size_t t = 0; t < m.size(); ++t)
      m[t] += field(r.rounds[t]) / static_cast<double>(s.runs.size());
  }
  return m;
}

void RunSeries(const Options& o, std::vector<Series>& series) {
  std::vector<RunSpec> specs;
  for (const Series& s : series) {
    for (int seed = 1; seed <= o.seeds; ++seed) {
      RunSpec r = s.spec;
      r.seed = static_cast<std::uint64_t>(seed);
      r.metrics_every = 1;
      specs.push_back(r);
    }
  }
  std::vector<Outcome> runs = RunAll(o, specs);
  std::size_t k = 0;
  for (Series& s : series) {
    for (int seed = 1; seed <= o.seeds; ++seed) s.runs.push_back(std::move(runs[k++]));
  }
}

void WriteCurves(const std::string& path, const std::vector<Series>& series) {
  std::ofstream csv(path);
  csv << "series,round,empirical_risk,train_loss,consensus_gap,test_error,eps,R,V,decay\n";
  for (std::size_t j = 0; j < series.size(); ++j) {
    const Series& s = series[j];
    const auto risk = MeanCurve(s, [](const auto& m) { return m.objective; });
    const auto loss = MeanCurve(s, [](const auto& m) { return m.train_loss; });
    const auto gap = MeanCurve(s, [](const auto& m) { return m.consensus_gap; });
    const auto err = MeanCurve(s, [](const auto& m) { return m.test_error; });
    for (std::size_t t = 0; t < risk.size(); ++t) {
      csv << j << ',' << t << ',' << risk[t] << ',' << loss[t] << ',' << gap[t] << ',' << err[t]
          << ',' << s.spec.algorithm.As<dpadmm::PdmlParams>().label_eps << ','
          << s.spec.algorithm.As<dpadmm::PdmlParams>().R << ','
          << s.spec.algorithm.As<dpadmm::PdmlParams>().V << ','
          << s.spec.algorithm.As<dpadmm::PdmlParams>().decay << '\n';
    }
  }
}

void Plot(const Options& o, const std::string& figure, const std::string& script) {
  WriteText(o.out + "/" + figure + ".gp", script);
  if (std::system("command -v gnuplot > /dev/null 2>&1") != 0) {
    std::fprintf(stderr, "gnuplot not found: wrote %s/%s.gp but no PNG\n", o.out.c_str(),
                 figure.c_str());
    return;
  }
  const std::string cmd = "cd '" + o.out + "' && gnuplot " + figure + ".gp";
  if (std::system(cmd.c_str()) != 0)
    std::fprintf(stderr, "gnuplot failed on %s.gp\n", figure.c_str());
}

std::string Header(const std::string& figure, int w, int h) {
  return "# " + figure + ": written by dpadmm_repro_pdml; run here with `gnuplot " + figure +
         ".gp`\nset terminal png noenhanced size " + std::to_string(w) + "," + std::to_string(h) +
         " font 'DejaVu Sans,9'\nset output '" + figure +
         ".png'\nset datafile separator ','\n"
         "set grid\nset key top right font ',8'\n";
}

// gnuplot: column `col` of series j in <csv> against the round.
std::string Line(const std::string& csv, std::size_t j, int col, const std::string& title,
                 bool first) {
  return std::string(first ? "plot " : ", ") + "'" + csv +
         "' using 2:(int($1) == " + std::to_string(j) + " ? $" + std::to_string(col) +
         " : NaN) with lines lw 2 title '" + title + "'";
}

void Fig3(const Options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto [a, beta] = Chosen(o, "adult");
  const double eps = 1.0;
  std::vector<Series> series;
  RunSpec ref = AdultSpec(o, a, beta);
  series.push_back({"non-private ADMM, original data (reference)", ref, {}});
  RunSpec p1 = ref;
  p1.algorithm.As<dpadmm::PdmlParams>().label_eps = eps;
  series.push_back({"PDML without Phase 2 perturbation (eps=1, R=0, V=0)", p1, {}});
  RunSpec p2 = p1;
  p2.algorithm.As<dpadmm::PdmlParams>().R = 1.0;
  p2.algorithm.As<dpadmm::PdmlParams>().V = o.V;
  series.push_back({"PDML with Phase 2 (eps=1, R=1, V=" + Fmt("%g", o.V) + ", decay 0.8)", p2, {}});
  RunSeries(o, series);
  const std::string suffix = Suffix(o);
  const std::string fig = "fig3-000" + suffix;
  WriteCurves(o.out + "/" + fig + ".csv", series);
  const double reference = series[0].runs[0].rounds.back().objective;
  std::ostringstream gp;
  gp << Header(fig, 1200, 450) << "set multiplot layout 1,2\nset xlabel 'iteration'\n"
     << "set ylabel 'max_i ||w_i - mean w||'\nset logscale y\nset title '(a) consensus'\n";
  for (std::size_t j = 0; j < series.size(); ++j)
    gp << Line(fig + ".csv", j, 5, series[j].name, j == 0);
  gp << "\nunset logscale y\nset ylabel 'empirical risk J (eq. (1), true labels)'\nset title '(b) "
        "empirical risk'\n"
     << "set yrange [*:*]\n";
  for (std::size_t j = 1; j < series.size(); ++j)
    gp << Line(fig + ".csv", j, 3, series[j].name, j == 1);
  gp << ", " << reference
     << " with lines dt 2 lw 2 lc rgb '#00aa00' title 'reference (final risk of non-private "
        "ADMM)'\n"
     << "unset multiplot\n";
  Plot(o, fig, gp.str());
  std::ostringstream md;
  md << "Adult (" << series[0].runs[0].summary.info.train_rows << " training rows, "
     << series[0].runs[0].summary.info.features << " features), a = " << a << ", beta = " << beta
     << ", " << o.iterations << " iterations, " << o.seeds << " seed(s).\n\n"
     << "| series | risk J at t=10 | t=30 | final | consensus gap final | test error final "
        "|\n|---|---|---|---|---|---|\n";
  for (const Series& s : series) {
    const auto risk = MeanCurve(s, [](const auto& m) { return m.objective; });
    const auto gap = MeanCurve(s, [](const auto& m) { return m.consensus_gap; });
    const auto err = MeanCurve(s, [](const auto& m) { return m.test_error; });
    const auto at = [&](std::size_t t) { return risk[std::min(t, risk.size() - 1)]; };
    md << "| " << s.name << " | " << Fmt("%.4f", at(10)) << " | " << Fmt("%.4f", at(30)) << " | "
       << Fmt("%.4f", risk.back()) << " | " << Fmt("%.2e", gap.back()) << " | "
       << Fmt("%.4f", err.back()) << " |\n";
  }
  WriteText(o.out + "/" + fig + "_table.md", md.str());
  std::cout << "## " << fig << "\n\n" << md.str() << "\n(" << fig << ": " << Elapsed(t0) << ")\n\n";
}

void Fig4(const Options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto [a, beta] = Chosen(o, "adult");
  const std::string suffix = Suffix(o);
  const std::string fig = "fig4-000" + suffix;
  RunSpec base = AdultSpec(o, a, beta);
  base.algorithm.As<dpadmm::PdmlParams>().label_eps = 1.0;
  base.algorithm.As<dpadmm::PdmlParams>().V = o.V;
  // (a) R with decay 0.8; (b) decay with R = 1; (c) eps with and without Phase 2.
  std::vector<Series> sa, sb, sc;
  RunSpec ref = AdultSpec(o, a, beta);
  sa.push_back({"original data (non-private)", ref, {}});
  for (double R : {0.0, 1.0, 3.0, 5.0, 9.0}) {
    RunSpec s = base;
    s.algorithm.As<dpadmm::PdmlParams>().R = R;
    sa.push_back({"R=" + Fmt("%g", R), s, {}});
  }
  for (double decay : {0.5, 0.8, 0.9, 0.95}) {
    RunSpec s = base;
    s.algorithm.As<dpadmm::PdmlParams>().R = 1.0;
    s.algorithm.As<dpadmm::PdmlParams>().decay = decay;
    sb.push_back({"decay=" + Fmt("%g", decay), s, {}});
  }
  const std::vector<double> epss = {0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.5, 2.0, 3.0};
  for (double e : epss) {
    RunSpec s = base;
    s.algorithm.As<dpadmm::PdmlParams>().label_eps = e;
    s.algorithm.As<dpadmm::PdmlParams>().R = 0.0;
    s.algorithm.As<dpadmm::PdmlParams>().V = 0.0;
    sc.push_back({"eps=" + Fmt("%g", e) + " without Phase 2", s, {}});
    s.algorithm.As<dpadmm::PdmlParams>().R = 1.0;
    s.algorithm.As<dpadmm::PdmlParams>().V = o.V;
    sc.push_back({"eps=" + Fmt("%g", e) + " with Phase 2 (R=1)", s, {}});
  }
  RunSeries(o, sa);
  RunSeries(o, sb);
  RunSeries(o, sc);
  WriteCurves(o.out + "/" + fig + "a.csv", sa);
  WriteCurves(o.out + "/" + fig + "b.csv", sb);
  const double reference = sa[0].runs[0].rounds.back().objective;
  std::ostringstream c_csv;
  c_csv << "eps,final_risk_without_phase2,final_risk_with_phase2,test_error_without,test_error_"
           "with,reference\n";
  for (std::size_t k = 0; k < epss.size(); ++k) {
    const auto r0 = MeanCurve(sc[2 * k], [](const auto& m) { return m.objective; });
    const auto r1 = MeanCurve(sc[2 * k + 1], [](const auto& m) { return m.objective; });
    const auto e0 = MeanCurve(sc[2 * k], [](const auto& m) { return m.test_error; });
    const auto e1 = MeanCurve(sc[2 * k + 1], [](const auto& m) { return m.test_error; });
    c_csv << epss[k] << ',' << r0.back() << ',' << r1.back() << ',' << e0.back() << ',' << e1.back()
          << ',' << reference << '\n';
  }
  WriteText(o.out + "/" + fig + "c.csv", c_csv.str());
  std::ostringstream gp;
  gp << Header(fig, 1500, 450) << "set multiplot layout 1,3\nset xlabel 'iteration'\n"
     << "set ylabel 'empirical risk J (true labels)'\nset title '(a) different R (decay 0.8)'\n";
  for (std::size_t j = 1; j < sa.size(); ++j) gp << Line(fig + "a.csv", j, 3, sa[j].name, j == 1);
  gp << ", " << reference << " with lines dt 2 lw 2 lc rgb '#00aa00' title 'original data'\n"
     << "set title '(b) different decay rates (R = 1)'\n";
  for (std::size_t j = 0; j < sb.size(); ++j) gp << Line(fig + "b.csv", j, 3, sb[j].name, j == 0);
  gp << ", " << reference << " with lines dt 2 lw 2 lc rgb '#00aa00' title 'original data'\n"
     << "set title '(c) different eps (final risk)'\nset xlabel 'eps'\nset logscale y\n"
     << "plot '" << fig
     << "c.csv' using 1:2 every ::1 with linespoints lw 2 pt 7 title 'without Phase 2', "
     << "'' using 1:3 every ::1 with linespoints lw 2 pt 5 title 'with Phase 2 (R = 1)', "
     << "'' using 1:6 every ::1 with lines dt 2 lw 2 lc rgb '#00aa00' title 'original data'\n"
     << "unset multiplot\n";
  Plot(o, fig, gp.str());
  std::ostringstream md;
  md << "Adult, a = " << a << ", beta = " << beta << ", V = " << o.V << ", " << o.iterations
     << " iterations, " << o.seeds
     << " seed(s). Reference (non-private) final risk: " << Fmt("%.4f", reference)
     << ".\n\n| setting | final risk J | t=20 | test error |\n|---|---|---|---|\n";
  for (const auto* group : {&sa, &sb, &sc}) {
    for (const Series& s : *group) {
      const auto risk = MeanCurve(s, [](const auto& m) { return m.objective; });
      const auto err = MeanCurve(s, [](const auto& m) { return m.test_error; });
      md << "| " << s.name << (group == &sb ? " (R=1)" : "") << " | " << Fmt("%.4f", risk.back())
         << " | " << Fmt("%.4f", risk[std::min<std::size_t>(20, risk.size() - 1)]) << " | "
         << Fmt("%.4f", err.back()) << " |\n";
    }
  }
  WriteText(o.out + "/" + fig + "_table.md", md.str());
  std::cout << "## " << fig << "\n\n" << md.str() << "\n(" << fig << ": " << Elapsed(t0) << ")\n\n";
}

int Usage(const char* msg) {
  if (msg != nullptr) std::fprintf(stderr, "error: %s\n\n", msg);
  std::fprintf(
      stderr,
      "usage: dpadmm_repro_pdml validate-000 | table1-000 | fig3-000 | fig4-000 | all [options]\n"
      "  --data DIR        shared data folder (default $DPADMM_DATA, else %s)\n"
      "  --out DIR         output folder (default %s)\n"
      "  --splits N        table1: seeded 70/30 splits averaged (default 10)\n"
      "  --iterations T    ADMM iterations (default 100)\n"
      "  --seeds N         fig3/fig4: runs averaged per setting (default 1; --full: 5)\n"
      "  --threads K       concurrent runs (default: all cores)\n"
      "  --V V             initial std of the primal perturbation (default 0.5)\n"
      "  --bias            append an intercept feature (outputs get a _bias suffix)\n"
      "  --datasets LIST   comma-separated subset (validate/table1)\n"
      "  --full            the full version: --seeds 5 (fig3/fig4)\n",
      DPADMM_SHARED_DATA, DPADMM_REPRO_OUT);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage(nullptr);
  const std::string cmd = argv[1];
  Options o;
  const char* env = std::getenv("DPADMM_DATA");
  o.data = env != nullptr ? env : DPADMM_SHARED_DATA;
  for (int k = 2; k < argc; ++k) {
    const std::string f = argv[k];
    const auto value = [&]() -> std::string {
      if (k + 1 >= argc) throw dpadmm::InputError(f + " needs a value");
      return argv[++k];
    };
    try {
      if (f == "--data")
        o.data = value();
      else if (f == "--out")
        o.out = value();
      else if (f == "--splits")
        o.splits = std::stoi(value());
      else if (f == "--iterations")
        o.iterations = std::stoi(value());
      else if (f == "--seeds")
        o.seeds = std::stoi(value());
      else if (f == "--threads")
        o.threads = std::stoi(value());
      else if (f == "--V")
        o.V = std::stod(value());
      else if (f == "--bias")
        o.bias = true;
      else if (f == "--full")
        o.seeds = 5;
      else if (f == "--datasets") {
        std::stringstream ss(value());
        for (std::string s; std::getline(ss, s, ',');) o.datasets.push_back(s);
      } else
        return Usage(("unknown option " + f).c_str());
    } catch (const std::logic_error& e) {
      return Usage((f + ": bad value").c_str());
    }
  }
  if (o.splits < 1 || o.iterations < 1 || o.seeds < 1 || o.threads < 0 || !(o.V >= 0.0)) {
    return Usage("--splits, --iterations and --seeds must be >= 1, --threads >= 0, --V >= 0");
  }
  std::filesystem::create_directories(o.out);
  try {
    const auto t0 = std::chrono::steady_clock::now();
    if (cmd == "validate-000")
      Validate(o);
    else if (cmd == "table1-000")
      Table1(o);
    else if (cmd == "fig3-000")
      Fig3(o);
    else if (cmd == "fig4-000")
      Fig4(o);
    else if (cmd == "all") {
      Validate(o);
      Table1(o);
      Fig3(o);
      Fig4(o);
    } else {
      return Usage(("unknown subcommand " + cmd).c_str());
    }
    std::fprintf(stderr, "total: %s\n", Elapsed(t0).c_str());
  } catch (const dpadmm::InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
