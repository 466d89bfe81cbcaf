// SPDX-License-Identifier: Apache-2.0
#include "spec_flags.h"

#include <cstdint>
#include <limits>
#include <string>

#include "dpadmm/core/error.h"
#include "dpadmm/run/spec_json.h"
#include "dpadmm/runtime/engine.h"
#include "dpadmm/solver/loss.h"
#include "dpadmm/tools/epsilon_policy.h"

namespace dpadmm::cli {

std::string AlgorithmsWith(const std::string& key) {
  std::string out;
  for (const Choice<Algorithm>& c : Choices<Algorithm>()) {
    AlgorithmParams params = DefaultParams(c.value);
    bool has = false;
    std::visit(
        [&](auto& p) {
          std::decay_t<decltype(p)>::Visit(p, [&](const char* k, auto&) { has = has || key == k; });
        },
        params);
    if (has) out += (out.empty() ? "" : ", ") + std::string(c.name);
  }
  return out;
}

void SpecFlags::Register() {
  std::string group = "Data";
  const auto in = [&](CLI::Option* o) { o->group(group); };
  in(ChoiceFlag<DataSource>(
         "--data", [](RunSpec & s) -> auto& { return s.data.source; }, "Data source")
         ->type_name("SOURCE"));
  in(Value(
         "--train", [](RunSpec & s) -> auto& { return s.data.train_path; },
         "Training data file (file sources)")
         ->type_name("FILE"));
  in(Value(
         "--test", [](RunSpec & s) -> auto& { return s.data.test_path; },
         "Test data file; without it a seeded --test-fraction split (adult: required)")
         ->type_name("FILE"));
  in(Value(
         "--train-labels", [](RunSpec & s) -> auto& { return s.data.train_labels_path; },
         "asc: training labels file (one +-1 per line)")
         ->type_name("FILE"));
  in(Value(
         "--test-labels", [](RunSpec & s) -> auto& { return s.data.test_labels_path; },
         "asc: test labels file")
         ->type_name("FILE"));
  in(Value(
         "--features", [](RunSpec & s) -> auto& { return s.data.num_features; },
         "libsvm: number of features (0 = the largest index in the file)")
         ->type_name("N"));
  in(Value(
         "--label-column", [](RunSpec & s) -> auto& { return s.data.label_column; },
         "csv: column of the label, 0-based; negative counts from the end (-1 = last)")
         ->type_name("K"));
  {
    // A char is entered as a one-character string ("tab" or "\t" for a tab).
    auto text = std::make_shared<std::string>(1, flags_.data.delimiter);
    CLI::Option* o = app_.add_option("--delimiter", *text,
                                     "csv: field delimiter, one character ('tab' for a tab, "
                                     "' ' for whitespace)")
                         ->type_name("CHAR");
    o->check([](const std::string& v) -> std::string {
      return (v.size() == 1 || v == "tab" || v == "\\t") ? "" : "must be one character or 'tab'";
    });
    bindings_.emplace_back(o, [text](RunSpec& s) {
      s.data.delimiter = (*text == "tab" || *text == "\\t") ? '\t' : (*text)[0];
    });
    storage_.push_back(text);
    in(o);
  }
  in(Switch(
      "--header", [](RunSpec & s) -> auto& { return s.data.has_header; }, true,
      "csv: the first line is a header"));
  in(Value(
         "--rows", [](RunSpec & s) -> auto& { return s.data.rows; },
         "Generated data: rows before the train/test split")
         ->type_name("N"));
  in(Value(
         "--dims", [](RunSpec & s) -> auto& { return s.data.dims; },
         "Generated data: dimension (sparse: number of features)")
         ->type_name("D"));
  in(Value(
         "--informative,--sparse-informative",
         [](RunSpec & s) -> auto& { return s.data.sparse_informative; },
         "sparse: informative columns (the first ones)")
         ->type_name("K"));
  in(Value(
         "--nnz-per-row,--sparse-nnz-per-row",
         [](RunSpec & s) -> auto& { return s.data.sparse_nnz_per_row; }, "sparse: nonzeros per row")
         ->type_name("K"));
  in(Value(
         "--flip-probability,--sparse-flip-probability",
         [](RunSpec & s) -> auto& { return s.data.sparse_flip_probability; },
         "sparse: label-flip probability")
         ->type_name("P"));
  in(Value(
         "--test-fraction", [](RunSpec & s) -> auto& { return s.data.test_fraction; },
         "Share of rows held out for testing when there is no --test file, in (0, 1)")
         ->type_name("F"));
  in(Switch(
      "--bias", [](RunSpec & s) -> auto& { return s.data.add_bias; }, true,
      "Append a constant feature 1 (an intercept) to every row before normalisation"));
  in(Switch(
      "--no-normalize", [](RunSpec & s) -> auto& { return s.data.normalize; }, false,
      "Keep rows as loaded (the same as --scaling none)"));
  in(ChoiceFlag<Scaling>(
         "--scaling", [](RunSpec & s) -> auto& { return s.data.scaling; },
         "How each node prepares its rows. auto: non-private and simulation runs standardize "
         "raw-unit data (a CSV or in-memory training value outside [-1, 1]), else "
         "global-max-norm; private mode takes public-bounds when bounds are given, else "
         "clip-only, and never dp-standardize (it spends budget: ask for it with "
         "--standardize-epsilon). Private mode refuses global-max-norm and standardize")
         ->type_name("MODE"));
  in(Value(
         "--feature-bounds", [](RunSpec & s) -> auto& { return s.data.feature_bounds_path; },
         "Public per-feature bounds: one 'lo hi' line per feature, or 'index lo hi' lines "
         "(0-based; unlisted features take --feature-range)")
         ->type_name("FILE"));
  in(List(
         "--feature-range", [](RunSpec & s) -> auto& { return s.data.feature_range; },
         "Public bounds LO,HI of every feature not in --feature-bounds")
         ->type_name("LO,HI"));
  in(Value(
         "--bounds-epsilon", [](RunSpec & s) -> auto& { return s.data.bounds_epsilon; },
         "--scaling dp-bounds (or dp-standardize without public bounds): epsilon each node "
         "spends on its DP estimate of the feature bounds (part of its budget)")
         ->type_name("E"));
  in(Value(
         "--standardize-epsilon", [](RunSpec & s) -> auto& { return s.data.standardize_epsilon; },
         "--scaling dp-standardize: epsilon each node spends on its noisy per-feature sums "
         "(part of its budget)")
         ->type_name("E"));

  group = "Graph (consensus family)";
  in(ChoiceFlag<Topology>(
         "--topology", [](RunSpec & s) -> auto& { return s.graph.topology; }, "Communication graph")
         ->type_name("KIND"));
  in(Value(
         "--nodes", [](RunSpec & s) -> auto& { return s.graph.nodes; }, "Number of nodes (parties)")
         ->type_name("N"));
  {
    auto text = std::make_shared<std::string>("auto");
    CLI::Option* o = app_.add_option("--edges", *text,
                                     "random: edges of the connected random graph; auto = "
                                     "about 1.3 per node (13 for 10 nodes)")
                         ->type_name("M|auto");
    o->check([](const std::string& v) -> std::string {
      if (v == "auto") return "";
      int parsed = 0;
      return internal::ParseStrictInteger(v, parsed).empty() && parsed >= 1
                 ? ""
                 : "must be a positive integer or 'auto', got " + internal::QuoteToken(v);
    });
    bindings_.emplace_back(o, [text](RunSpec& s) {
      s.graph.edges = *text == "auto" ? GraphSpec::kAutoEdges : std::stoi(*text);
    });
    storage_.push_back(text);
    in(o);
  }
  in(Value(
         "--grid-rows", [](RunSpec & s) -> auto& { return s.graph.grid_rows; },
         "grid: rows of the grid (0 = as square as possible)")
         ->type_name("R"));
  in(Value(
         "--graph-file", [](RunSpec & s) -> auto& { return s.graph.file; },
         "file: edge list, one undirected edge 'i j' per line, 0-based")
         ->type_name("FILE"));

  group = "Partition (consensus family)";
  in(ChoiceFlag<PartitionKind>(
         "--partition", [](RunSpec & s) -> auto& { return s.partition.kind; },
         "How training rows are spread over nodes")
         ->type_name("KIND"));
  in(List(
      "--proportions", [](RunSpec & s) -> auto& { return s.partition.proportions; },
      "proportional: one positive weight per node, comma separated"));
  in(Value(
         "--dirichlet-alpha", [](RunSpec & s) -> auto& { return s.partition.dirichlet_alpha; },
         "dirichlet: concentration (small = unbalanced nodes)")
         ->type_name("A"));
  in(Value(
         "--partition-file", [](RunSpec & s) -> auto& { return s.partition.file; },
         "file: line k holds the node of training row k")
         ->type_name("FILE"));
  in(List(
      "--public-rows", [](RunSpec & s) -> auto& { return s.partition.public_rows; },
      "The row count of every node, declared public, comma separated (checked against the "
      "data); party mode: lets --target-epsilon and row weighting run"));

  group = "Loss (consensus family)";
  in(ChoiceFlag<LossKind>(
         "--loss", [](RunSpec & s) -> auto& { return s.loss.kind; }, "Per-sample loss")
         ->type_name("KIND"));
  in(Value(
         "--huber-h", [](RunSpec & s) -> auto& { return s.loss.huber_h; },
         "smooth_hinge: half-width h > 0")
         ->type_name("H"));

  group = "Algorithm";
  {
    algorithm_name_ = std::make_shared<std::string>(ChoiceName(DefaultAlgorithm()));
    std::string help = "The algorithm (it selects the family):";
    for (const Choice<Algorithm>& c : Choices<Algorithm>()) {
      help += std::string("\n") + c.name + ": " + c.help;
    }
    if (sharing_alias_) help += "\n(admm: the old name of sharing)";
    algorithm_option_ = app_.add_option("--algorithm", *algorithm_name_, help)->type_name("NAME");
    bindings_.emplace_back(algorithm_option_, [this](RunSpec& s) {
      s.algorithm.Select(ParseAlgorithm(*algorithm_name_));
    });
    in(algorithm_option_);
  }
  in(Value(
         "--C", [](RunSpec & s) -> auto& { return s.algorithm.C; },
         "Consensus: loss weight C (node i weighs each of its B_i losses by C / B_i)")
         ->type_name("C"));
  {
    // --rho is the regulariser of the consensus family and the ADMM penalty of ADMM sharing
    // (each paper's own symbol).
    auto value = std::make_shared<double>(RunSpec{}.algorithm.rho);
    storage_.push_back(value);
    CLI::Option* o =
        WithStrictNumber<double>(
            app_.add_option("--rho", *value,
                            "Consensus: regulariser weight rho (default 0.22); sharing: "
                            "the ADMM penalty rho of 001 "
                            "(default 5e-4)"))
            ->type_name("RHO");
    bindings_.emplace_back(o, [value](RunSpec& s) {
      if (s.family() == Family::kSharing) {
        if (!SetParam(s.algorithm, "rho", *value)) {
          Fail(std::string("--rho is not used by algorithm '") + ChoiceName(s.algorithm.name()) +
               "' (use --lambda for the regulariser)");
        }
      } else {
        s.algorithm.rho = *value;
      }
    });
    in(o);
  }
  in(Switch(
      "--rho-per-node", [](RunSpec & s) -> auto& { return s.algorithm.rho_per_node; }, true,
      "Each node carries rho (004's DR-ERM) instead of rho / N (003)"));
  in(Value(
         "--eta", [](RunSpec & s) -> auto& { return s.algorithm.eta; },
         "ADMM penalty eta (M-ADMM theta; MR-ADMM base penalty; PDML beta)")
         ->type_name("ETA"));
  in(Switch(
      "--random-start", [](RunSpec & s) -> auto& { return s.algorithm.random_start; }, true,
      "Start from f_i ~ N(0, 1/d) per coordinate (seeded) instead of 0"));
  in(ChoiceFlag<Weighting>(
         "--weighting", [](RunSpec & s) -> auto& { return s.algorithm.weighting; },
         "Consensus: node = each node's loss is its average (weight C); row = node i's loss "
         "weighs C B_i / B_bar, every row alike (the centralized problem; average: the gossip "
         "converges to the rows-weighted mean)")
         ->type_name("W"));
  in(Value(
         "--gossip-rounds", [](RunSpec & s) -> auto& { return s.algorithm.gossip_rounds; },
         "Consensus: the last G iterations average the nodes' releases over the graph "
         "(post-processing, no privacy cost); G < --iterations")
         ->type_name("G"));
  in(List(
      "--node-eta", [](RunSpec & s) -> auto& { return s.algorithm.node_eta; },
      "Per-node eta, one per node (replaces --eta)"));
  in(Value(
         "--privacy-budget", [](RunSpec & s) -> auto& { return s.algorithm.privacy_budget; },
         "Each node's privacy budget: a node freezes before its loss would exceed it; the "
         "run stops when every private node has frozen; 0 = no budget")
         ->type_name("B"));
  in(List(
      "--node-privacy-budget", [](RunSpec & s) -> auto& { return s.algorithm.node_privacy_budget; },
      "Per-node privacy budget, one per node (replaces --privacy-budget)"));
  in(Param("--alpha", "alpha", 0.0, "Privacy parameter of the first iteration; 0 = no noise")
         ->type_name("A"));
  in(Param("--noise-multiplier", "noise_multiplier", 0.0,
           "pvp gaussian: sigma_i / sensitivity_i (calibrated by --target-epsilon)")
         ->type_name("Z"));
  in(Param("--q1", "q1", 1.0, "Penalty growth factor >= 1 (madmm, mradmm, private_mradmm)")
         ->type_name("Q"));
  in(Param("--q2", "q2", 1.0, "Growth factor of alpha per iteration")->type_name("Q"));
  in(Param("--gamma", "gamma", 0.5, "R-ADMM / MR-ADMM even-step term gamma >= 0")->type_name("G"));
  in(Param("--dual-step", "dual_step", 0.0, "M-ADMM dual step theta (0 = eta_i(1))")
         ->type_name("S"));
  in(ParamList<double>("--node-alpha", "node_alpha",
                       "Per-node alpha, one per node (replaces --alpha)"));
  in(ParamList<double>("--node-q1", "node_q1", "Per-node q1, one per node (replaces --q1)"));
  in(ParamList<double>("--node-q2", "node_q2", "Per-node q2, one per node (replaces --q2)"));

  group = "PDML (--algorithm pdml; paper 000: a = --rho, beta = --eta, the paper's C = 1)";
  in(Param("--label-eps", "label_eps", 0.0,
           "Label privacy eps of every user (randomized response, eps-LDP); 0 = labels "
           "reported truthfully")
         ->type_name("EPS"));
  in(ParamList<double>("--label-eps-groups", "label_eps_groups",
                       "Heterogeneous label privacy: eps of each user group (0 = truthful); "
                       "replaces --label-eps"));
  in(ParamList<double>("--label-eps-shares", "label_eps_shares",
                       "Share of users in each group (> 0, sum 1; each user draws a group, "
                       "seeded)"));
  in(Param("--pdml-R", "R", 0.0,
           "Objective perturbation bound: ||eta_i||_2 <= R, uniform in the ball, once per "
           "server; 0 = none")
         ->type_name("R"));
  in(Param("--pdml-V", "V", 0.0,
           "Primal perturbation: the released w~_i(t) = w_i(t) + N(0, decay^(t-1) V^2 I); "
           "0 = none")
         ->type_name("V"));
  in(Param("--pdml-decay", "decay", 0.8, "Decay rate of the primal noise variance, in (0, 1]")
         ->type_name("RHO"));
  {
    // Registered after every noise flag, and exclusive with them (below): the private
    // defaults' one explicit step to the non-private setting.
    auto value = std::make_shared<bool>(false);
    storage_.push_back(value);
    CLI::Option* o = app_.add_flag(
        "--non-private", *value,
        "Turn the selected algorithm's noise off (every private algorithm's defaults are "
        "private): pdml truthful labels, R = V = 0; sharing without --dp; dvp, pvp, madmm "
        "and private_mradmm are refused, naming their non-private counterpart (admm, "
        "mradmm)");
    bindings_.emplace_back(o, [](RunSpec& s) { MakeNonPrivate(s); });
    in(o);
  }

  group = "Sharing family (--algorithm sharing | sgd; paper 001)";
  in(Param("--parties", "parties", 2, "Number of parties M")->type_name("M"));
  in(ParamList<std::int64_t>("--party-features", "party_features",
                             "Features per party in column order, comma separated (default: "
                             "even split)"));
  in(Param("--lambda", "lambda", 1e-4, "Regulariser weight lambda")->type_name("L"));
  in(Param("--z-tolerance", "z_tolerance", 1e-13,
           "Relative step tolerance of the per-sample z Newton solve")
         ->type_name("TOL"));
  in(Param("--z-max-iterations", "z_max_iterations", 100,
           "Newton steps of the z update before the run is declared diverged")
         ->type_name("N"));
  in(ParamSwitch("--dp", "dp", "Private ADMM sharing (mechanism: --dp-mechanism)"));
  // Shared by the baselines and DP sharing (each reads its own algorithm.<name> field).
  const std::string mechanism_group =
      "Privacy mechanism (pvp; baselines local, average, central; sharing --dp)";
  Param("--dp-mechanism,--mechanism", "mechanism", std::string("per algorithm"),
        "pvp: laplace (the paper's l2-Laplace output noise, --alpha; the default) or gaussian "
        "(the exact discrete Gaussian, sigma_i = --noise-multiplier x the update's "
        "sensitivity, composed exactly); "
        "local, average, central: objective (objective perturbation, Chaudhuri et al. 2011, "
        "pure epsilon; the default) or gaussian (Gaussian output perturbation, (epsilon, "
        "delta)); sharing: gaussian (default): D_m x_m + N(0, sigma^2 I_N), ||x_m|| <= b1 "
        "enforced (DP); paper16: 001 (16), x_m + N(0, sigma^2 (D_m^T D_m)^-1) - NOT DP as "
        "stated (the noise covariance is made of the private data: releases lie in "
        "col(D_m)); 001 used --b1 1")
      ->type_name("MECH")
      ->group(mechanism_group);
  in(Param("--total-epsilon", "total_epsilon", 2.0,
           "gaussian: each party's total epsilon over all iterations (tight), sets sigma")
         ->type_name("EPS"));
  Param("--epsilon", "epsilon", 1.0,
        "local, average, central: the mechanism's epsilon per node (> 0; central: against "
        "everyone but the trusted curator); sharing paper16: per-iteration epsilon in (0, 1]")
      ->type_name("EPS")
      ->group(mechanism_group);
  in(Param("--noise-sigma", "noise_sigma", 0.0,
           "Set sigma directly (0 = from Theorem 3 and --epsilon); epsilon is then reported "
           "for it")
         ->type_name("S"));
  Param("--delta", "delta", 1e-5,
        "local, average, central with the gaussian mechanism: its delta; sharing gaussian: "
        "total delta; paper16: per-iteration delta")
      ->type_name("D")
      ->group(mechanism_group);
  in(Param("--delta-prime", "delta_prime", 1e-5, "paper16: Corollary 1's delta'")->type_name("D"));
  in(Param("--b1", "b1", 100.0,
           "gaussian: enforced bound on ||x_m||; paper16: assumed bound on ||x_m||, ||y|| "
           "(Assumption 2.1; not enforced, the trace shows the observed norms)")
         ->type_name("B"));
  in(Param("--c1", "c1", 1.0, "Bound on |R''| (Assumption 2.2)")->type_name("C"));
  in(Param("--learning-rate", "learning_rate", 0.5, "sgd: step size of epoch 1")->type_name("ETA"));
  in(Param("--lr-decay", "lr_decay", 0.0,
           "sgd: step of epoch e = learning_rate / (1 + lr_decay (e - 1))")
         ->type_name("K"));
  in(Param("--batch-size", "batch_size", 64, "sgd: mini-batch size")->type_name("B"));
  in(Param("--sgd-init-sd,--init-sd", "init_sd", 0.01, "sgd: initial weights ~ N(0, sd^2)")
         ->type_name("SD"));

  group = "Local Newton solver (consensus family)";
  in(Value(
         "--newton-max-iterations", [](RunSpec & s) -> auto& { return s.newton.max_iterations; },
         "Newton steps per local solve")
         ->type_name("N"));
  in(Value(
         "--newton-tolerance", [](RunSpec & s) -> auto& { return s.newton.gradient_tolerance; },
         "Relative gradient-norm tolerance of a local solve")
         ->type_name("TOL"));
  in(Value(
         "--newton-armijo-c", [](RunSpec & s) -> auto& { return s.newton.armijo_c; },
         "Armijo sufficient-decrease constant, in (0, 0.5)")
         ->type_name("C"));
  in(Value(
         "--newton-backtrack", [](RunSpec & s) -> auto& { return s.newton.backtrack; },
         "Line-search step shrink factor, in (0, 1)")
         ->type_name("F"));
  in(Value(
         "--newton-max-backtracks", [](RunSpec & s) -> auto& { return s.newton.max_backtracks; },
         "Line-search steps per Newton step")
         ->type_name("N"));
  in(Value(
         "--newton-dense-max-dim",
         [](RunSpec & s) -> auto& { return s.newton.dense_hessian_max_dim; },
         "Cholesky on the Hessian up to this many features, conjugate gradients above")
         ->type_name("D"));
  in(Value(
         "--newton-max-cg-iterations",
         [](RunSpec & s) -> auto& { return s.newton.max_cg_iterations; },
         "Conjugate-gradient steps per Newton step (CG mode)")
         ->type_name("N"));

  group = "Run";
  in(Value(
         "--iterations,--epochs", [](RunSpec & s) -> auto& { return s.iterations; },
         "ADMM rounds after round 0 (sharing: iterations; sgd: epochs)")
         ->type_name("T"));
  in(Value(
         "--seed", [](RunSpec & s) -> auto& { return s.seed; },
         "Seed of data generation, split, graph, partition and random start (never noise)")
         ->type_name("S"));
  in(NoiseSeed());
  in(ChoiceFlag<runtime::EngineKind>(
         "--engine", [](RunSpec & s) -> auto& { return s.engine; },
         "Engine; all give bitwise-identical results")
         ->type_name("ENGINE"));
  in(Value(
         "--threads", [](RunSpec & s) -> auto& { return s.threads; },
         "Worker threads of the tbb engine (0 = all cores); mpi: TBB threads inside each rank "
         "(0 or 1 = the rank's own thread)")
         ->type_name("N"));
  in(Switch(
      "--no-optimum,--no-baselines", [](RunSpec & s) -> auto& { return s.compute_optimum; }, false,
      "Skip the centralized optimum (sharing: the baselines)"));
  in(Value(
         "--tolerance", [](RunSpec & s) -> auto& { return s.tolerance; },
         "Consensus: stop ('converged') once model change and consensus gap are below this; "
         "0 = never")
         ->type_name("TOL"));
  in(ChoiceFlag<MetricsScope>(
         "--metrics", [](RunSpec & s) -> auto& { return s.metrics; },
         "Which figures the run computes and outputs")
         ->type_name("SCOPE"));
  in(Value(
         "--eval-every,--metrics-every", [](RunSpec & s) -> auto& { return s.metrics_every; },
         "Consensus: metrics, trace rows and the --tolerance check every this many rounds "
         "and at the last; 0 = first and last only")
         ->type_name("K"));
  in(Value(
         "--target-epsilon", [](RunSpec & s) -> auto& { return s.target_epsilon; },
         "Calibrate the noise so that the tight total epsilon per node (sharing: per party) "
         "at delta 1e-5 (sharing: --delta) is E: dvp, pvp, madmm, private_mradmm set alpha "
         "(pvp gaussian: its noise multiplier), sharing --dp its total epsilon, local, average, "
         "central their --epsilon, pdml its --pdml-V; with the epsilon policy (default) dvp, "
         "pvp, madmm, private_mradmm and pdml first take their rounds (dvp, madmm, "
         "private_mradmm: one, then gossip rounds), C, rho, eta, row weighting (pvp the "
         "gaussian mechanism, pdml decay 1 and R 0) from E, delta, the graph, the rows per node "
         "and the features; 0 = the knob as given")
         ->type_name("E"));
  in(Switch(
      "--no-epsilon-policy", [](RunSpec & s) -> auto& { return s.epsilon_policy; }, false,
      "With --target-epsilon: keep every setting as given and calibrate only the noise knob "
      "(the papers' settings)"));
  {
    // The epsilon policy chooses these from the target: setting one as well is refused (not
    // silently overridden); --no-epsilon-policy keeps them as given.
    CLI::Option* target = app_.get_option("--target-epsilon");
    CLI::Option* off = app_.get_option("--no-epsilon-policy");
    std::vector<CLI::Option*> chosen;
    for (const char* name :
         {"--iterations", "--C", "--rho", "--rho-per-node", "--eta", "--node-eta", "--weighting",
          "--gossip-rounds", "--dp-mechanism", "--noise-multiplier", "--pdml-R", "--pdml-decay"}) {
      chosen.push_back(app_.get_option(name));
    }
    bindings_.emplace_back(target, [off, chosen](RunSpec& s) {
      if (off->count() > 0 || !HasEpsilonPolicy(s.algorithm.name())) return;
      for (const CLI::Option* o : chosen) {
        if (o->count() == 0) continue;
        Fail(o->get_name() +
             " with --target-epsilon: the epsilon policy chooses the rounds, C, "
             "rho, eta, the weighting, the gossip rounds, pvp's mechanism and pdml's decay and R "
             "from the target "
             "(algorithms/privacy/README.md, \"The "
             "epsilon policy\"); add --no-epsilon-policy to keep your settings and calibrate "
             "only the noise");
      }
    });
  }
  CLI::Option* non_private = app_.get_option("--non-private");
  for (const char* noise :
       {"--alpha", "--node-alpha", "--label-eps", "--label-eps-groups", "--label-eps-shares",
        "--pdml-R", "--pdml-V", "--dp", "--target-epsilon"}) {
    non_private->excludes(app_.get_option(noise));
  }
}

}  // namespace dpadmm::cli
