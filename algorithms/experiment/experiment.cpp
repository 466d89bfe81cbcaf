// SPDX-License-Identifier: Apache-2.0
// Experiment: the family-independent part of a run (validation, data, RunInfo's common fields,
// engine checks) and the dispatch to the family's driver.
#include <algorithm>
#include <cmath>
#include <limits>

#include "data/data_source.h"
#include "dpadmm/core/error.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/experiment/mpi_run.h"
#include "dpadmm/runtime/mpi.h"
#include "experiment/driver.h"
#include "experiment/mpi_support.h"
#include "experiment/spec_internal.h"

namespace dpadmm {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void CheckEngine(runtime::EngineKind engine, int threads) {
  if (!runtime::EngineAvailable(engine)) {
    throw InputError(std::string("engine: '") + ChoiceName(engine) +
                     "' is not available in this build (use serial)");
  }
  if (threads < 0) {
    throw InputError("threads must be >= 0 (0 = all cores), got " + std::to_string(threads));
  }
}

std::unique_ptr<Experiment::Driver> Build(RunSpec spec, bool in_memory, Dataset train, Dataset test,
                                          const MpiPlacement* placement) {
  if (placement == nullptr && spec.engine == runtime::EngineKind::kMpi) {
    static const MpiPlacement kWorld;
    placement = &kWorld;
  }
  ValidateSpec(spec, !in_memory);
  // The SGD baseline is an in-process loop: the engine does not matter.
  if (spec.algorithm.name() != Algorithm::kSgd) CheckEngine(spec.engine, spec.threads);
  std::unique_ptr<Experiment::Driver> d =
      spec.family() == Family::kConsensus ? MakeConsensusDriver() : MakeSharingDriver();
  if (placement != nullptr) {
    CheckEngine(runtime::EngineKind::kMpi, spec.threads);
    if (!runtime::MpiInitialized()) {
      throw InputError(
          "engine: 'mpi' needs MPI initialised first (runtime::MpiSession, or the "
          "caller's MPI_Init) and every rank of the communicator constructing the "
          "experiment");
    }
    d->mpi = std::make_unique<MpiPlacement>(*placement);
    spec.engine = runtime::EngineKind::kMpi;
  }
  const bool rowwise = !in_memory && StartRowwiseLoad(*d, spec);  // MPI: rows per rank later
  if (rowwise) {
    // Each rank loads its own nodes' training rows in Prepare (LoadHostedSlices), which also
    // fills the data fields of info below.
  } else if (!in_memory) {
    TrainTest data = LoadDataSource(spec.data, spec.seed);
    train = std::move(data.train);
    test = std::move(data.test);
  } else if (test.rows() > 0 && test.cols() != train.cols()) {
    throw InputError("test data has " + std::to_string(test.cols()) +
                     " columns but training data has " + std::to_string(train.cols()));
  }
  RunInfo& info = d->info;
  if (!rowwise) {
    if (train.rows() == 0) throw InputError("training data has no rows");
    d->train = std::move(train);
    d->test = std::move(test);
    if (spec.data.add_bias) {
      AddBiasFeature(d->train);
      AddBiasFeature(d->test);
    }
    info.max_row_norm_before = std::max(d->train.MaxRowNorm(), d->test.MaxRowNorm());
    if (spec.data.normalize) info.normalization_factor = NormalizeRows(d->train, d->test);
  }

  info.family = spec.family();
  info.algorithm = spec.algorithm.name();
  if (in_memory) {
    info.dataset = "in-memory data";
  } else {
    const std::string source = ChoiceName(spec.data.source);
    info.dataset = IsGenerated(spec.data.source) ? source + " (generated)"
                                                 : source + ": " + spec.data.train_path;
  }
  if (rowwise) {
    info.train_rows = static_cast<std::int64_t>(d->rowwise->file_rows.size());
  } else {
    info.train_rows = d->train.rows();
    info.test_rows = d->test.rows();
    info.features = d->train.cols();
    info.sparse = d->train.is_sparse();
  }
  info.loss = ChoiceName(spec.loss.kind);
  info.engine = spec.engine;
  info.on_engine = spec.algorithm.name() != Algorithm::kSgd;
  info.threads = spec.threads;
  info.optimum_objective = kNaN;
  info.optimum_test_error = kNaN;
  d->spec = std::move(spec);
  d->Prepare();
  return d;
}

}  // namespace

double TestError(const Dataset& data, const Eigen::VectorXd& f) {
  if (data.rows() == 0) return kNaN;
  const Eigen::VectorXd scores =
      VisitRows(data, [&](const auto& x) -> Eigen::VectorXd { return x * f; });
  std::int64_t wrong = 0;
  for (Eigen::Index n = 0; n < scores.size(); ++n) {
    const double predicted = scores[n] >= 0.0 ? 1.0 : -1.0;
    wrong += predicted != data.y[n];
  }
  return static_cast<double>(wrong) / static_cast<double>(data.rows());
}

Experiment::Experiment(RunSpec spec)
    : driver_(Build(std::move(spec), false, Dataset{}, Dataset{}, nullptr)) {}

Experiment::Experiment(RunSpec spec, Dataset train, Dataset test)
    : driver_(Build(std::move(spec), true, std::move(train), std::move(test), nullptr)) {}

Experiment::Experiment(RunSpec spec, const MpiPlacement& placement)
    : driver_(Build(std::move(spec), false, Dataset{}, Dataset{}, &placement)) {}

Experiment::~Experiment() = default;
Experiment::Experiment(Experiment&&) noexcept = default;
Experiment& Experiment::operator=(Experiment&&) noexcept = default;

const RunSpec& Experiment::spec() const { return driver_->spec; }
const RunInfo& Experiment::info() const { return driver_->info; }
const Dataset& Experiment::train() const { return driver_->train; }
const Dataset& Experiment::test() const { return driver_->test; }
const Graph& Experiment::graph() const { return driver_->graph; }
const Partition& Experiment::partition() const { return driver_->partition; }
const Eigen::VectorXd& Experiment::optimum() const { return driver_->optimum; }

RunSummary Experiment::Run(RunObserver* observer, const runtime::StopToken* stop) const {
  return RunOn(driver_->spec.engine, driver_->spec.threads, observer, stop);
}

RunSummary Experiment::RunOn(runtime::EngineKind engine, int threads, RunObserver* observer,
                             const runtime::StopToken* stop) const {
  if (driver_->info.on_engine) CheckEngine(engine, threads);
  // Which nodes this process holds is fixed at construction: an MPI experiment runs on MPI only.
  if (driver_->info.on_engine &&
      (engine == runtime::EngineKind::kMpi) != (driver_->mpi != nullptr)) {
    throw InputError(driver_->mpi ? std::string("engine: this experiment was built across MPI "
                                                "ranks; it runs on the mpi engine only")
                                  : std::string("engine: 'mpi' needs an experiment built across "
                                                "MPI ranks (spec.engine = mpi, or MpiPlacement)"));
  }
  RunSummary summary;
  summary.info = driver_->info;
  summary.info.engine = engine;
  summary.info.threads = threads;
  if (observer != nullptr) observer->OnStart(summary.info);
  driver_->Run(engine, threads, observer, stop, summary);
  summary.seconds_per_round =
      summary.rounds > 0 ? summary.seconds / static_cast<double>(summary.rounds) : 0.0;
  return summary;
}

RunSummary RunExperiment(const RunSpec& spec, RunObserver* observer,
                         const runtime::StopToken* stop) {
  return Experiment(spec).Run(observer, stop);
}

}  // namespace dpadmm
