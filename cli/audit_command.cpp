// SPDX-License-Identifier: Apache-2.0
#include "audit_command.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>

#include "dpadmm/core/error.h"
#include "dpadmm/tools/audit.h"

namespace dpadmm::cli {
namespace {

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// Shortest round-trip text; JSON has no infinity, so an infinite bound is null.
std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string Short(double v) {
  if (std::isinf(v)) return "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

void PrintText(const AuditResult& r, double confidence) {
  std::ostream& o = std::cout;
  o << "mechanism:   " << r.mechanism << "\n"
    << "pair:        " << r.pair << "\n"
    << "noise:       " << r.noise << "\n"
    << "runs:        " << r.runs_per_side << " per side (" << r.runs_per_side - r.eval_per_side
    << " fit, " << r.eval_per_side << " evaluated), " << r.threads << " threads, "
    << Short(r.seconds) << " s\n"
    << "statistic:   " << r.statistic << "; says D when it is "
    << (r.d_above ? "above " : "at or below ") << Short(r.threshold) << "\n"
    << "FPR:         " << Short(r.fpr) << " (" << r.false_positives << "/" << r.eval_per_side
    << "), upper bound " << Short(r.fpr_upper) << "\n"
    << "FNR:         " << Short(r.fnr) << " (" << r.false_negatives << "/" << r.eval_per_side
    << "), upper bound " << Short(r.fnr_upper) << "\n"
    << "             (one-sided Clopper-Pearson, " << Short(1.0 - (1.0 - confidence) / 2.0)
    << " each: Bonferroni over the two for " << Short(confidence) << " jointly)\n"
    << "eps_lb:      " << Short(r.epsilon_lower_bound) << " at delta " << Short(r.setup.delta)
    << " over " << r.setup.rounds << (r.setup.rounds == 1 ? " round" : " rounds") << "\n"
    << "claim:       " << Short(r.claim) << " (" << r.claim_source << "); per round "
    << Short(r.claim_per_round) << "; paper's figure " << Short(r.paper_claim) << "\n"
    << "ratio:       " << Short(r.ratio) << " (eps_lb / claim)\n"
    << (r.pass ? "PASS: eps_lb <= claim\n"
               : "FAIL: the lower bound exceeds the claimed epsilon: the claim does not hold\n");
}

void PrintJson(const AuditResult& r, double confidence) {
  std::ostream& o = std::cout;
  o << "{\n"
    << "  \"algorithm\": " << JsonString(ToString(r.setup.mechanism)) << ",\n"
    << "  \"mechanism\": " << JsonString(r.mechanism) << ",\n"
    << "  \"pair\": " << JsonString(r.pair) << ",\n"
    << "  \"noise\": " << JsonString(r.noise) << ",\n"
    << "  \"rounds\": " << r.setup.rounds << ",\n"
    << "  \"runs_per_side\": " << r.runs_per_side << ",\n"
    << "  \"evaluated_per_side\": " << r.eval_per_side << ",\n"
    << "  \"statistic\": " << JsonString(r.statistic) << ",\n"
    << "  \"threshold\": " << JsonNumber(r.threshold) << ",\n"
    << "  \"d_above\": " << (r.d_above ? "true" : "false") << ",\n"
    << "  \"false_positives\": " << r.false_positives << ",\n"
    << "  \"false_negatives\": " << r.false_negatives << ",\n"
    << "  \"fpr\": " << JsonNumber(r.fpr) << ",\n"
    << "  \"fnr\": " << JsonNumber(r.fnr) << ",\n"
    << "  \"fpr_upper\": " << JsonNumber(r.fpr_upper) << ",\n"
    << "  \"fnr_upper\": " << JsonNumber(r.fnr_upper) << ",\n"
    << "  \"confidence\": " << JsonNumber(confidence) << ",\n"
    << "  \"delta\": " << JsonNumber(r.setup.delta) << ",\n"
    << "  \"epsilon_lower_bound\": " << JsonNumber(r.epsilon_lower_bound) << ",\n"
    << "  \"claim\": " << JsonNumber(r.claim) << ",\n"
    << "  \"claim_per_round\": " << JsonNumber(r.claim_per_round) << ",\n"
    << "  \"paper_claim\": " << JsonNumber(r.paper_claim) << ",\n"
    << "  \"claim_source\": " << JsonString(r.claim_source) << ",\n"
    << "  \"ratio\": " << JsonNumber(r.ratio) << ",\n"
    << "  \"pass\": " << (r.pass ? "true" : "false") << ",\n"
    << "  \"seconds\": " << JsonNumber(r.seconds) << ",\n"
    << "  \"threads\": " << r.threads << "\n"
    << "}\n";
}

}  // namespace

AuditCommand::AuditCommand(CLI::App& app) {
  sub_ = app.add_subcommand(
      "audit",
      "Empirical privacy audit of one mechanism: many runs on two neighbouring datasets with "
      "fresh\nprivate keys, a distinguishing statistic, and the epsilon lower bound it proves "
      "beside the\naccountant's epsilon for the same releases.");
  sub_->option_defaults()->always_capture_default();
  sub_->footer(
      "Method and limits: algorithms/privacy/README.md, \"Empirical audit\". Without "
      "--noise-seed every run\ndraws fresh keys from the operating system (private mode); with "
      "it the runs are a reproducible\nsimulation. Exit codes: 0 PASS (eps_lb <= claim); 7 FAIL; "
      "2 bad input; 1 internal error.");
  std::string names;
  for (AuditMechanism m : AllAuditMechanisms())
    names += (names.empty() ? "" : " | ") + std::string(ToString(m));
  sub_->add_option("--algorithm", algorithm_, names)->required();
  sub_->add_option("--rounds", rounds_,
                   "T: rounds whose releases the statistic sees (sharing: iterations); the claim "
                   "composes them");
  sub_->add_option("--runs", runs_, "Runs per side (half fit the statistic, half evaluate it)");
  sub_->add_option("--delta", delta_, "delta of the claim and of the bound");
  sub_->add_option("--threads", threads_, "Threads (0 = all cores)");
  sub_->add_option("--confidence", confidence_, "Joint confidence of the two bounds");
  sub_->add_option("--noise-seed", noise_seed_,
                   "Simulation: keys derived from this seed (reproducible, not private); unset: "
                   "private keys, fresh per run")
      ->default_str("");
  sub_->add_option("--seed", seed_, "Seed of the set-up's data");
  sub_->add_option("--rows", rows_, "Rows per node / samples (0 = the mechanism's audit default)");
  sub_->add_option("--dim", dim_, "Features per node / party (0 = default)");
  sub_->add_option("--alpha", alpha_, "Privacy parameter alpha (pdml: label eps; 0 = default)");
  sub_->add_option("--eta", eta_, "Penalty eta (consensus; 0 = default)");
  sub_->add_option("--C", C_, "Loss weight C (consensus; 0 = default)");
  sub_->add_option("--rho", rho_, "Regulariser rho (consensus; 0 = default)");
  sub_->add_option("--loss", loss_,
                   "smooth_hinge (worst-case pair) | logistic (a flip reaches half the bound)");
  sub_->add_option("--epsilon", epsilon_,
                   "Sharing: target epsilon (default mechanism: total over the rounds; "
                   "paper16: per iteration); local, average, central: the mechanism's "
                   "epsilon (objective perturbation); 0 = 1");
  sub_->add_option("--mechanism", mechanism_,
                   "local, average, central: objective (objective perturbation) | gaussian "
                   "(Gaussian output perturbation at --epsilon, --delta)");
  sub_->add_flag("--json", json_, "Print one JSON object instead of text");
}

int AuditCommand::Run() const {
  AuditSetup setup;
  setup.mechanism = ParseAuditMechanism(algorithm_);
  setup.rounds = rounds_;
  setup.rows = rows_;
  setup.dim = dim_;
  setup.alpha = alpha_;
  setup.eta = eta_;
  setup.C = C_;
  setup.rho = rho_;
  setup.epsilon = epsilon_;
  setup.delta = delta_;
  setup.seed = seed_;
  if (loss_ != "smooth_hinge" && loss_ != "logistic") {
    throw InputError("audit: --loss must be smooth_hinge or logistic, got '" + loss_ + "'");
  }
  setup.logistic = loss_ == "logistic";
  if (mechanism_ != "objective" && mechanism_ != "gaussian") {
    throw InputError("audit: --mechanism must be objective or gaussian, got '" + mechanism_ + "'");
  }
  setup.gaussian = mechanism_ == "gaussian";
  AuditOptions options;
  options.runs_per_side = runs_;
  options.threads = threads_;
  options.confidence = confidence_;
  if (sub_->count("--noise-seed") > 0) options.noise_seed = noise_seed_;
  const AuditResult r = RunAudit(setup, options);
  if (json_) {
    PrintJson(r, confidence_);
  } else {
    PrintText(r, confidence_);
  }
  return r.pass ? 0 : kExitAuditFail;
}

}  // namespace dpadmm::cli
