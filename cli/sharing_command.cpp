#include "sharing_command.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <type_traits>

#include "dpadmm/core/error.h"

namespace dpadmm::cli {
namespace {

[[noreturn]] void Fail(const std::string& message) { throw InputError(message); }

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail(path + ": cannot open config file: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::ofstream OpenOut(const std::string& path, const char* what) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) Fail(path + ": cannot write " + what + ": " + std::strerror(errno));
  return out;
}

std::string G(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

class TraceObserver : public SharingObserver {
 public:
  TraceObserver(std::ofstream& out, bool progress, std::int64_t epochs)
      : out_(out), progress_(progress), epochs_(epochs) {
    out_ << SharingCsvHeader() << '\n';
  }
  void OnStart(const SharingInfo& info) override {
    if (!progress_) return;
    std::fprintf(stderr, "dpadmm sharing: %s, %d parties, %lld training rows x %lld features, %lld epochs\n",
                 info.algorithm.c_str(), static_cast<int>(info.party_features.size()),
                 static_cast<long long>(info.train_rows), static_cast<long long>(info.features),
                 static_cast<long long>(epochs_));
  }
  void OnEpoch(const SharingMetrics& m) override {
    out_ << SharingMetricsToCsvRow(m) << '\n';
    ++rows_;
    if (progress_) {
      std::fprintf(stderr, "dpadmm sharing: epoch %lld/%lld  objective %s  test log loss %s  %.2f s\n",
                   static_cast<long long>(m.epoch), static_cast<long long>(epochs_),
                   G(m.objective).c_str(), G(m.test_loss).c_str(), m.seconds);
    }
  }
  std::int64_t rows() const { return rows_; }

 private:
  std::ofstream& out_;
  bool progress_;
  std::int64_t epochs_;
  std::int64_t rows_ = 0;
};

}  // namespace

template <class Field>
CLI::Option* SharingCommand::Value(const std::string& name, Field field, const std::string& help) {
  CLI::Option* o = sub_->add_option(name, field(flags_), help);
  bindings_.emplace_back(o, [field, this](SharingSpec& s) { field(s) = field(flags_); });
  return o;
}

template <class Field>
CLI::Option* SharingCommand::Switch(const std::string& name, Field field, bool when_given,
                                    const std::string& help) {
  auto value = std::make_shared<bool>(false);
  switches_.push_back(value);
  CLI::Option* o = sub_->add_flag(name, *value, help);
  bindings_.emplace_back(o, [field, value, when_given](SharingSpec& s) {
    field(s) = *value ? when_given : !when_given;
  });
  return o;
}

SharingCommand::SharingCommand(CLI::App& app) {
  sub_ = app.add_subcommand(
      "sharing",
      "Learn over vertically partitioned features (001): parties hold column blocks, a "
      "coordinator the labels.\nADMM sharing (optionally differentially private, eq. (16)) or "
      "the SGD baseline. Without options:\nnon-private ADMM sharing, 2 parties, on generated "
      "sparse data (2,000 rows x 200 features).");
  sub_->option_defaults()->always_capture_default();
  sub_->footer(
      "The spec is built from SharingSpec's defaults, then --config FILE, then the flags given "
      "here.\n--print-config shows it as JSON (a valid --config).\nExit codes: 0 completed; 2 bad "
      "input; 3 diverged (the summary names node and round); 4 cancelled; 1 internal error.");
  std::string g = "Data";
  const auto in = [&](CLI::Option* o) { o->group(g); };
  in(Value("--data", [](SharingSpec& s) -> auto& { return s.data.source; },
           "twonorm | ringnorm | sparse (generated); libsvm | adult | csv | asc (files)")->type_name("SOURCE"));
  in(Value("--train", [](SharingSpec& s) -> auto& { return s.data.train_path; }, "Training data file")->type_name("FILE"));
  in(Value("--test", [](SharingSpec& s) -> auto& { return s.data.test_path; },
           "Test data file; without it a seeded --test-fraction split")->type_name("FILE"));
  in(Value("--features", [](SharingSpec& s) -> auto& { return s.data.num_features; },
           "libsvm: number of features (0 = the largest index)")->type_name("N"));
  in(Value("--rows", [](SharingSpec& s) -> auto& { return s.data.rows; }, "Generated data: rows before the split")->type_name("N"));
  in(Value("--dims", [](SharingSpec& s) -> auto& { return s.data.dims; }, "Generated data: features")->type_name("D"));
  in(Value("--test-fraction", [](SharingSpec& s) -> auto& { return s.data.test_fraction; },
           "Share of rows held out when there is no --test file")->type_name("F"));
  in(Value("--informative", [](SharingSpec& s) -> auto& { return s.sparse_informative; },
           "sparse: informative columns (the first ones)")->type_name("K"));
  in(Value("--nnz-per-row", [](SharingSpec& s) -> auto& { return s.sparse_nnz_per_row; },
           "sparse: nonzeros per row")->type_name("K"));
  in(Value("--flip-probability", [](SharingSpec& s) -> auto& { return s.sparse_flip_probability; },
           "sparse: label noise")->type_name("P"));
  in(Switch("--no-normalize", [](SharingSpec& s) -> auto& { return s.data.normalize; }, false,
            "Keep rows as loaded (default: scale so max ||x|| = 1, 001 Assumption 2.3)"));
  g = "Algorithm";
  in(Value("--algorithm", [](SharingSpec& s) -> auto& { return s.algorithm; }, "admm | sgd")->type_name("NAME"));
  in(Value("--parties", [](SharingSpec& s) -> auto& { return s.parties; }, "Number of parties M")->type_name("M"));
  in(Value("--party-features", [](SharingSpec& s) -> auto& { return s.party_features; },
           "Features per party in column order, comma separated (default: even split)")
         ->delimiter(',')->allow_extra_args(false)->type_name("LIST")->default_str(""));
  in(Value("--lambda", [](SharingSpec& s) -> auto& { return s.lambda; }, "Regulariser weight lambda")->type_name("L"));
  in(Value("--rho", [](SharingSpec& s) -> auto& { return s.rho; }, "ADMM penalty rho")->type_name("RHO"));
  in(Value("--epochs", [](SharingSpec& s) -> auto& { return s.epochs; }, "ADMM iterations / SGD epochs")->type_name("T"));
  in(Value("--z-tolerance", [](SharingSpec& s) -> auto& { return s.z_tolerance; },
           "Relative step tolerance of the per-sample z Newton solve")->type_name("TOL"));
  in(Value("--z-max-iterations", [](SharingSpec& s) -> auto& { return s.z_max_iterations; },
           "Newton steps of the z update before the run is declared diverged")->type_name("N"));
  g = "Differential privacy (001 eq. (16), Lemma 1, Theorem 3, Corollary 1)";
  in(Switch("--dp", [](SharingSpec& s) -> auto& { return s.dp; }, true, "Perturb x_m with N(0, sigma^2 (D_m^T D_m)^-1)"));
  in(Value("--epsilon", [](SharingSpec& s) -> auto& { return s.epsilon; }, "Per-iteration epsilon in (0, 1]")->type_name("EPS"));
  in(Value("--noise-sigma", [](SharingSpec& s) -> auto& { return s.noise_sigma; },
           "Set sigma directly (0 = from Theorem 3 and --epsilon); epsilon is then reported for it")->type_name("S"));
  in(Value("--delta", [](SharingSpec& s) -> auto& { return s.delta; }, "Per-iteration delta")->type_name("D"));
  in(Value("--delta-prime", [](SharingSpec& s) -> auto& { return s.delta_prime; }, "Corollary 1's delta'")->type_name("D"));
  in(Value("--b1", [](SharingSpec& s) -> auto& { return s.b1; },
           "Assumed bound on ||x_m||, ||y|| (Assumption 2.1; not enforced, the trace shows the observed norms)")->type_name("B"));
  in(Value("--c1", [](SharingSpec& s) -> auto& { return s.c1; }, "Bound on |R''| (Assumption 2.2)")->type_name("C"));
  g = "SGD baseline";
  in(Value("--learning-rate", [](SharingSpec& s) -> auto& { return s.learning_rate; }, "Step size of epoch 1")->type_name("ETA"));
  in(Value("--lr-decay", [](SharingSpec& s) -> auto& { return s.lr_decay; },
           "Step of epoch e: learning_rate / (1 + lr_decay (e - 1))")->type_name("K"));
  in(Value("--batch-size", [](SharingSpec& s) -> auto& { return s.batch_size; }, "Mini-batch size")->type_name("B"));
  in(Value("--sgd-init-sd", [](SharingSpec& s) -> auto& { return s.sgd_init_sd; }, "Initial weights ~ N(0, sd^2)")->type_name("SD"));
  g = "Run";
  in(Value("--seed", [](SharingSpec& s) -> auto& { return s.seed; }, "Seed of all randomness")->type_name("S"));
  in(Value("--engine", [](SharingSpec& s) -> auto& { return s.engine; },
           "tbb | serial (admm; bitwise-identical results)")->type_name("ENGINE"));
  in(Value("--threads", [](SharingSpec& s) -> auto& { return s.threads; }, "tbb worker threads (0 = all cores)")->type_name("N"));
  in(Switch("--no-baselines", [](SharingSpec& s) -> auto& { return s.compute_baselines; }, false,
            "Skip the centralized and local-only logistic regressions"));
  g = "Input and output";
  sub_->add_option("--config", config_, "JSON spec file (shape: see --print-config)")->type_name("FILE")->group(g);
  sub_->add_option("--trace", trace_, "Per-epoch metrics (CSV)")->type_name("FILE")->group(g);
  sub_->add_option("--summary", summary_, "Summary JSON (outcome, privacy, baselines, model)")->type_name("FILE")->group(g);
  sub_->add_flag("--quiet,-q", quiet_, "No progress lines on stderr")->group(g);
  sub_->add_flag("--print-config", print_config_, "Print the effective spec as JSON and exit")->group(g);
}

int SharingCommand::Run(const runtime::StopToken* stop,
                        std::chrono::steady_clock::time_point started) const {
  SharingSpec spec;
  if (!config_.empty()) ApplySharingSpecJson(ReadText(config_), config_, spec);
  for (const auto& [option, apply] : bindings_) {
    if (option->count() > 0) apply(spec);
  }
  spec.Validate();
  if (print_config_) {
    std::cout << SharingSpecToJson(spec) << std::endl;
    return 0;
  }
  const SharingExperiment experiment(spec);
  std::ofstream trace = OpenOut(trace_, "the trace");
  std::ofstream summary_file = OpenOut(summary_, "the summary");
  TraceObserver observer(trace, !quiet_, spec.epochs);
  const SharingSummary s = experiment.Run(&observer, stop);
  summary_file << SharingSummaryToJson(s) << '\n';
  summary_file.close();
  trace.close();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const SharingInfo& i = s.info;
  std::ostringstream out;
  out << "dpadmm sharing: " << ToString(s.outcome) << " -- " << s.message << '\n'
      << "  data                  " << i.dataset << ": " << i.train_rows << " training rows, "
      << i.test_rows << " test rows, " << i.features << " features\n"
      << "  parties               ";
  for (std::size_t m = 0; m < i.party_features.size(); ++m) out << (m ? " / " : "") << i.party_features[m];
  out << " features\n  algorithm             " << i.algorithm << ", " << i.engine << "\n"
      << "  objective             " << G(s.final.objective);
  if (i.central.computed) out << "  (centralized optimum " << G(i.central.objective) << ")";
  out << "\n  test log loss         " << G(s.final.test_loss);
  if (i.central.computed) {
    out << "  (all features " << G(i.central.test_loss) << ", party 1 only " << G(i.local.test_loss) << ")";
  }
  out << "\n  test error            " << G(s.final.test_error) << "\n";
  if (i.dp) {
    out << "  privacy               per iteration (" << G(i.epsilon) << ", " << G(i.delta)
        << ")-DP; total (" << G(s.final.epsilon_total) << ", " << G(s.final.delta_total)
        << ") over " << s.epochs << " iterations (Corollary 1)\n"
        << "  assumptions           b1 = " << G(i.b1) << " (observed max ||x_m|| "
        << G(s.final.max_x_norm) << ", ||y|| " << G(s.final.y_norm) << "), c1 = " << G(i.c1) << "\n"
        << "  sigma per party      ";
    for (double v : i.party_sigma) out << ' ' << G(v);
    out << '\n';
  }
  out << "  wall time             " << G(wall) << " s (" << G(s.seconds_per_epoch) << " s per epoch)\n"
      << "  trace                 " << trace_ << " (" << observer.rows() << " rows)\n"
      << "  summary               " << summary_ << '\n';
  std::cout << out.str() << std::flush;
  if (trace.fail() || summary_file.fail()) {
    std::cerr << "dpadmm: error: could not write " << (trace.fail() ? trace_ : summary_) << '\n';
    return 1;
  }
  switch (s.outcome) {
    case RunOutcome::kDiverged: return 3;
    case RunOutcome::kCancelled: return 4;
    default: return 0;
  }
}

}  // namespace dpadmm::cli
