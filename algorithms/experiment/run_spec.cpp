#include "dpadmm/experiment/run_spec.h"

#include <cmath>
#include <sstream>

#include "dpadmm/core/error.h"
#include "dpadmm/consensus/pdml.h"

namespace dpadmm {
namespace {

template <class T>
[[noreturn]] void Bad(const std::string& field, const std::string& rule, const T& got) {
  std::ostringstream os;
  os << field << " must be " << rule << ", got " << got;
  throw InputError(os.str());
}

void Positive(const std::string& field, double v) {
  if (!(v > 0.0) || !std::isfinite(v)) Bad(field, "> 0 and finite", v);
}

bool OneOf(const std::string& v, std::initializer_list<const char*> options) {
  for (const char* o : options)
    if (v == o) return true;
  return false;
}

std::string Join(std::initializer_list<const char*> options) {
  std::string s;
  for (const char* o : options) s += (s.empty() ? "" : ", ") + std::string(o);
  return s;
}

void Choice(const std::string& field, const std::string& v,
            std::initializer_list<const char*> options) {
  if (!OneOf(v, options)) Bad(field, "one of " + Join(options), "'" + v + "'");
}

// The PDML fields (000). Checked whatever the algorithm, so a config never carries a bad value
// unnoticed; the pdml-only rules apply when algorithm.name is "pdml".
void ValidatePdml(const RunSpec& spec) {
  const AlgorithmSpec& algorithm = spec.algorithm;
  const Loss& loss = spec.loss;
  LabelPrivacySpec labels{algorithm.label_eps, algorithm.label_eps_groups, algorithm.label_eps_shares};
  labels.Validate("algorithm.");
  if (!(algorithm.pdml_R >= 0.0) || !std::isfinite(algorithm.pdml_R)) {
    Bad("algorithm.pdml_R", ">= 0 and finite (0 = no objective perturbation)", algorithm.pdml_R);
  }
  if (!(algorithm.pdml_V >= 0.0) || !std::isfinite(algorithm.pdml_V)) {
    Bad("algorithm.pdml_V", ">= 0 and finite (0 = no primal perturbation)", algorithm.pdml_V);
  }
  if (!(algorithm.pdml_decay > 0.0 && algorithm.pdml_decay <= 1.0)) {
    Bad("algorithm.pdml_decay", "in (0, 1]", algorithm.pdml_decay);
  }
  if (algorithm.name != "pdml") return;
  if (loss.kind != LossKind::kLogistic) {
    throw InputError("loss.kind: algorithm 'pdml' needs the logistic loss (the debiased smooth "
                     "hinge of 000 eq. (19) is not convex), got " + loss.Name());
  }
  if (algorithm.privacy_budget != 0.0) {
    Bad("algorithm.privacy_budget", "0 for 'pdml' (label privacy is fixed in Phase 1; 000 gives "
        "no per-round accounting for Phase 2)", algorithm.privacy_budget);
  }
  const auto unused = [&](const char* field, bool set) {
    if (set) {
      throw InputError(std::string("algorithm.") + field + " is not used by 'pdml' (set it to " +
                       "its default, or use label_eps / pdml_R / pdml_V / pdml_decay)");
    }
  };
  unused("alpha", algorithm.alpha != 0.0);
  unused("node_alpha", !algorithm.node_alpha.empty());
  unused("node_privacy_budget", !algorithm.node_privacy_budget.empty());
  unused("node_eta", !algorithm.node_eta.empty());
  unused("rho_per_node", algorithm.rho_per_node);
  unused("node_q1", !algorithm.node_q1.empty());
  unused("node_q2", !algorithm.node_q2.empty());
  unused("q1", algorithm.q1 != 1.0);
  unused("q2", algorithm.q2 != 1.0);
  unused("dual_step", algorithm.dual_step != 0.0);
}

}  // namespace

void RunSpec::Validate() const {
  Choice("data.source", data.source,
         {"twonorm", "ringnorm", "sparse", "libsvm", "adult", "csv", "asc"});
  const bool generated = OneOf(data.source, {"twonorm", "ringnorm", "sparse"});
  if (generated) {
    if (data.rows < 10) Bad("data.rows", ">= 10", data.rows);
    if (data.dims < 1) Bad("data.dims", ">= 1", data.dims);
  } else if (data.train_path.empty()) {
    throw InputError("data.train_path is required for data.source '" + data.source + "'");
  }
  if (data.source == "adult" && data.test_path.empty()) {
    throw InputError("data.test_path is required for data.source 'adult' (adult.test)");
  }
  if (data.source == "asc" && data.train_labels_path.empty()) {
    throw InputError("data.train_labels_path is required for data.source 'asc'");
  }
  if (data.source == "asc" && !data.test_path.empty() && data.test_labels_path.empty()) {
    throw InputError("data.test_labels_path is required when data.test_path is given for 'asc'");
  }
  if (data.test_path.empty() && !(data.test_fraction > 0.0 && data.test_fraction < 1.0)) {
    Bad("data.test_fraction", "in (0, 1)", data.test_fraction);
  }
  if (data.num_features < 0) Bad("data.num_features", ">= 0", data.num_features);

  Choice("graph.topology", graph.topology, {"ring", "star", "complete", "grid", "random", "file"});
  if (graph.topology == "file") {
    if (graph.file.empty()) throw InputError("graph.file is required for graph.topology 'file'");
  } else {
    if (graph.nodes < 2) Bad("graph.nodes", ">= 2", graph.nodes);
    if (graph.topology == "ring" && graph.nodes < 3) Bad("graph.nodes", ">= 3 for a ring", graph.nodes);
  }
  if (graph.topology == "random") {
    const long long max_edges = static_cast<long long>(graph.nodes) * (graph.nodes - 1) / 2;
    if (graph.edges < graph.nodes - 1 || graph.edges > max_edges) {
      Bad("graph.edges", "in [nodes - 1, nodes (nodes - 1) / 2] = [" +
                             std::to_string(graph.nodes - 1) + ", " + std::to_string(max_edges) + "]",
          graph.edges);
    }
  }
  if (graph.topology == "grid" && graph.grid_rows != 0 &&
      (graph.grid_rows < 1 || graph.nodes % graph.grid_rows != 0)) {
    Bad("graph.grid_rows", "a divisor of graph.nodes (or 0 for automatic)", graph.grid_rows);
  }

  Choice("partition.kind", partition.kind, {"even", "proportional", "dirichlet", "file"});
  if (partition.kind == "proportional") {
    if (graph.topology != "file" &&
        static_cast<int>(partition.proportions.size()) != graph.nodes) {
      Bad("partition.proportions", "one value per node (" + std::to_string(graph.nodes) + ")",
          std::to_string(partition.proportions.size()) + " values");
    }
    for (std::size_t k = 0; k < partition.proportions.size(); ++k) {
      Positive("partition.proportions[" + std::to_string(k) + "]", partition.proportions[k]);
    }
  }
  if (partition.kind == "dirichlet") Positive("partition.dirichlet_alpha", partition.dirichlet_alpha);
  if (partition.kind == "file" && partition.file.empty()) {
    throw InputError("partition.file is required for partition.kind 'file'");
  }

  if (loss.kind == LossKind::kSmoothHinge) Positive("loss.huber_h", loss.huber_h);
  Choice("algorithm.name", algorithm.name,
         {"admm", "dvp", "pvp", "madmm", "radmm", "mradmm", "private_mradmm", "pdml"});
  Positive("algorithm.C", algorithm.C);
  Positive("algorithm.rho", algorithm.rho);
  Positive("algorithm.eta", algorithm.eta);
  if (!(algorithm.q1 >= 1.0) || !std::isfinite(algorithm.q1)) {
    Bad("algorithm.q1", ">= 1 (penalties must not decrease)", algorithm.q1);
  }
  if (!(algorithm.alpha >= 0.0) || !std::isfinite(algorithm.alpha)) {
    Bad("algorithm.alpha", ">= 0 (0 = no noise)", algorithm.alpha);
  }
  Positive("algorithm.q2", algorithm.q2);
  if (!(algorithm.gamma >= 0.0) || !std::isfinite(algorithm.gamma)) Bad("algorithm.gamma", ">= 0", algorithm.gamma);
  if (!(algorithm.dual_step >= 0.0) || !std::isfinite(algorithm.dual_step)) {
    Bad("algorithm.dual_step", ">= 0 (0 = eta_i(1))", algorithm.dual_step);
  }
  if (!(algorithm.privacy_budget >= 0.0) || !std::isfinite(algorithm.privacy_budget)) {
    Bad("algorithm.privacy_budget", ">= 0 (0 = none)", algorithm.privacy_budget);
  }
  const bool needs_alpha = algorithm.name == "dvp" || algorithm.name == "pvp" ||
                           algorithm.name == "private_mradmm";
  if (needs_alpha && algorithm.alpha == 0.0 && algorithm.node_alpha.empty()) {
    throw InputError("algorithm.alpha must be > 0 for algorithm '" + algorithm.name +
                     "' (it sets the noise)");
  }
  const auto per_node = [&](const char* field, const std::vector<double>& v, double min, bool strict) {
    if (v.empty()) return;
    if (graph.topology != "file" && static_cast<int>(v.size()) != graph.nodes) {
      Bad(std::string("algorithm.") + field, "one value per node (" + std::to_string(graph.nodes) + ")",
          std::to_string(v.size()) + " values");
    }
    for (std::size_t k = 0; k < v.size(); ++k) {
      const bool ok = std::isfinite(v[k]) && (strict ? v[k] > min : v[k] >= min);
      if (!ok) {
        Bad(std::string("algorithm.") + field + "[" + std::to_string(k) + "]",
            std::string(strict ? "> " : ">= ") + std::to_string(min), v[k]);
      }
    }
  };
  per_node("node_alpha", algorithm.node_alpha, needs_alpha ? 0.0 : 0.0, needs_alpha);
  per_node("node_eta", algorithm.node_eta, 0.0, true);
  per_node("node_q1", algorithm.node_q1, 1.0, false);
  per_node("node_q2", algorithm.node_q2, 0.0, true);
  per_node("node_privacy_budget", algorithm.node_privacy_budget, 0.0, false);
  ValidatePdml(*this);
  newton.Validate();
  if (iterations < 0) Bad("iterations", ">= 0", iterations);
  Choice("engine", engine, {"tbb", "serial"});
  if (threads < 0) Bad("threads", ">= 0 (0 = all cores)", threads);
  if (metrics_every < 0) Bad("metrics_every", ">= 0", metrics_every);
  if (!(tolerance >= 0.0) || !std::isfinite(tolerance)) Bad("tolerance", ">= 0", tolerance);
}

}  // namespace dpadmm
