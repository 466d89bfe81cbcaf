// SPDX-License-Identifier: Apache-2.0
// Embedding dpadmm in a C++ service: train a private classifier on generated data, save it,
// load it back (as a separate prediction service would) and predict on fresh raw rows.
//
//   ./embed [model.json]        (default: dpadmm-embed-model.json in the working directory)
#include <cstdio>
#include <span>
#include <string>
#include <utility>

#include <dpadmm/data/generators.h>
#include <dpadmm/persistence/model.h>
#include <dpadmm/run/choices.h>
#include <dpadmm/run/run.h>

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "dpadmm-embed-model.json";

  // 1. Train from data already in memory (no files): any Eigen row-major matrix (dense or
  //    sparse) with labels in {-1, +1}. Here 6 parties on a ring learn one logistic-regression
  //    model with dual variable perturbation (004) on generated twonorm rows. The model records
  //    the privacy the run spent and what that figure means.
  const dpadmm::Dataset all = dpadmm::GenerateTwonorm(3000, /*seed=*/7, /*dims=*/20);
  dpadmm::Dataset train{std::get<dpadmm::DenseRows>(all.x).topRows(2100), all.y.head(2100),
                        "memory"};
  dpadmm::Dataset test{std::get<dpadmm::DenseRows>(all.x).bottomRows(900), all.y.tail(900),
                       "memory"};
  dpadmm::RunSpec spec;
  spec.graph.topology = dpadmm::Topology::kRing;
  spec.graph.nodes = 6;
  spec.algorithm.Select(dpadmm::Algorithm::kDvp);
  spec.algorithm.As<dpadmm::DvpParams>().alpha = 1.0;
  spec.algorithm.eta = 10.0;
  spec.iterations = 40;
  spec.compute_optimum = false;
  const dpadmm::Experiment experiment(spec, std::move(train), std::move(test));
  const dpadmm::RunSummary summary = experiment.Run();
  std::printf("trained: %s, test accuracy %.2f%%, privacy loss %g\n",
              dpadmm::ToString(summary.outcome), 100.0 * (1.0 - summary.final.test_error),
              summary.final.privacy_loss);

  // 2. Save the model (versioned JSON).
  const dpadmm::Model model = dpadmm::Model::FromRun(summary, spec);
  model.Save(path);

  // 3. A prediction service loads it and scores raw rows (no normalisation on its side: the
  //    model applies the training scaling itself).
  const dpadmm::Model loaded = dpadmm::Model::Load(path);
  const dpadmm::Dataset fresh = dpadmm::GenerateTwonorm(2000, /*seed=*/2024, /*dims=*/20);
  const auto& rows = std::get<dpadmm::DenseRows>(fresh.x);
  const Eigen::VectorXd labels = loaded.Predict(rows);
  const Eigen::VectorXd proba = loaded.PredictProba(rows);
  int right = 0;
  for (Eigen::Index n = 0; n < labels.size(); ++n) right += labels[n] == fresh.y[n];
  const double accuracy = static_cast<double>(right) / static_cast<double>(labels.size());
  const Eigen::VectorXd first = rows.row(0).transpose();
  std::printf("loaded %s: %lld features, %s loss, privacy: %s\n", path.c_str(),
              static_cast<long long>(loaded.features()), loaded.loss().Name().c_str(),
              loaded.privacy().meaning.c_str());
  std::printf("fresh rows: accuracy %.2f%%; row 0: label %+g, P(+1) = %.4f, score %.4f\n",
              100.0 * accuracy, loaded.Predict(first), proba[0], loaded.DecisionFunction(first));

  // The saved model predicts exactly what the trained one does.
  const bool same =
      (loaded.DecisionFunction(rows).array() == model.DecisionFunction(rows).array()).all();
  const bool ok = summary.outcome == dpadmm::RunOutcome::kCompleted && same && accuracy > 0.9;
  std::printf("%s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
