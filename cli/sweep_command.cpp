// SPDX-License-Identifier: Apache-2.0
#include "sweep_command.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "command_common.h"
#include "dpadmm/core/error.h"
#include "dpadmm/run/choices.h"
#include "output_files.h"

namespace dpadmm::cli {
namespace {

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Colour-blind-safe palette (Okabe and Ito 2008).
constexpr const char* kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#F0E442", "#000000"};

std::string Cell(double percent) {
  return std::isnan(percent) ? std::string("n/a") : Fmt("%.2f", percent);
}

}  // namespace

std::string SweepToSvg(const SweepResult& r) {
  constexpr double kW = 900, kH = 520, kLeft = 70, kRight = 240, kTop = 70, kBottom = 60;
  const double pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  // Axes: x log10(epsilon) over whole decades around the epsilons; y accuracy in %.
  double emin = std::numeric_limits<double>::infinity(), emax = 0.0;
  double ymin = std::numeric_limits<double>::infinity(), ymax = -ymin;
  const auto widen = [&](double v) {
    if (std::isfinite(v)) {
      ymin = std::min(ymin, 100 * v);
      ymax = std::max(ymax, 100 * v);
    }
  };
  for (const SweepCell& c : r.cells) {
    emin = std::min(emin, c.epsilon);
    emax = std::max(emax, c.epsilon);
    widen(c.accuracy.mean);
    widen(c.accuracy.low);
    widen(c.accuracy.high);
  }
  for (const SweepStat* s : {&r.admm, &r.centralized, &r.majority}) widen(s->mean);
  if (!std::isfinite(ymin)) ymin = 0, ymax = 100;
  ymin = std::max(0.0, std::floor(ymin / 5.0) * 5.0 - 5.0);
  ymax = std::min(100.0, std::ceil(ymax / 5.0) * 5.0 + 5.0);
  if (ymax <= ymin) ymax = ymin + 10;
  if (!(emin > 0.0)) emin = 0.1, emax = 10.0;
  const double lx0 = std::floor(std::log10(emin)), lx1 = std::ceil(std::log10(emax));
  // A little room on both sides so that points at the decades do not sit on the frame.
  const double xa = std::log10(emin) - 0.08, xb = std::log10(emax) + 0.08;
  const auto X = [&](double eps) { return kLeft + pw * (std::log10(eps) - xa) / (xb - xa); };
  const auto Y = [&](double pct) { return kTop + ph * (1.0 - (pct - ymin) / (ymax - ymin)); };

  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kW << "\" height=\"" << kH
    << "\" viewBox=\"0 0 " << kW << ' ' << kH << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  o << "<text x=\"" << kLeft
    << "\" y=\"20\" font-size=\"14\">Test accuracy vs total epsilon: " << Escape(r.dataset)
    << "</text>\n";
  o << "<text x=\"" << kLeft << "\" y=\"38\" fill=\"#555\">" << r.seeds
    << " seeds, delta = " << Fmt("%g", r.delta) << ", bands: " << Escape(r.band) << "</text>\n";
  o << "<text x=\"" << kLeft << "\" y=\"54\" fill=\"#555\">" << Escape(r.noise) << "</text>\n";
  // Grid and ticks.
  o << "<g stroke=\"#ddd\" stroke-width=\"1\">\n";
  for (double d = lx0; d <= lx1 + 1e-9; d += 1) {
    for (int m = 1; m <= 9 && d + std::log10(m) <= lx1 + 1e-9; ++m) {
      const double v = std::log10(m) + d;
      if (v < xa || v > xb) continue;
      const double x = X(m * std::pow(10.0, d));
      o << "<line x1=\"" << x << "\" y1=\"" << kTop << "\" x2=\"" << x << "\" y2=\"" << kTop + ph
        << "\"" << (m == 1 ? "" : " stroke=\"#f0f0f0\"") << "/>\n";
    }
  }
  const double ystep = (ymax - ymin) > 30 ? 10 : 5;
  for (double y = ymin; y <= ymax + 1e-9; y += ystep) {
    o << "<line x1=\"" << kLeft << "\" y1=\"" << Y(y) << "\" x2=\"" << kLeft + pw << "\" y2=\""
      << Y(y) << "\"/>\n";
  }
  o << "</g>\n";
  o << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << pw << "\" height=\"" << ph
    << "\" fill=\"none\" stroke=\"black\"/>\n";
  // Tick labels at the swept epsilons (the grid marks the decades and their multiples).
  std::vector<double> ticks;
  for (const SweepCell& c : r.cells) {
    if (std::find(ticks.begin(), ticks.end(), c.epsilon) == ticks.end()) ticks.push_back(c.epsilon);
  }
  for (double e : ticks) {
    o << "<text x=\"" << X(e) << "\" y=\"" << kTop + ph + 18 << "\" text-anchor=\"middle\">"
      << Fmt("%g", e) << "</text>\n";
  }
  for (double y = ymin; y <= ymax + 1e-9; y += ystep) {
    o << "<text x=\"" << kLeft - 6 << "\" y=\"" << Y(y) + 4 << "\" text-anchor=\"end\">"
      << Fmt("%g", y) << "</text>\n";
  }
  o << "<text x=\"" << kLeft + pw / 2 << "\" y=\"" << kH - 15
    << "\" text-anchor=\"middle\">total epsilon per node (tight, at delta = " << Fmt("%g", r.delta)
    << "; log scale)</text>\n";
  o << "<text transform=\"translate(18," << kTop + ph / 2
    << ") rotate(-90)\" text-anchor=\"middle\">test accuracy (%)</text>\n";

  // Reference lines.
  double legend_y = kTop + 10;
  const double lgx = kLeft + pw + 15;
  const auto legend = [&](const std::string& colour, const std::string& dash,
                          const std::string& label) {
    o << "<line x1=\"" << lgx << "\" y1=\"" << legend_y << "\" x2=\"" << lgx + 24 << "\" y2=\""
      << legend_y << "\" stroke=\"" << colour << "\" stroke-width=\"2\"" << dash << "/>\n";
    o << "<text x=\"" << lgx + 30 << "\" y=\"" << legend_y + 4 << "\">" << Escape(label)
      << "</text>\n";
    legend_y += 20;
  };
  struct Ref {
    const SweepStat* stat;
    const char* colour;
    const char* dash;
    const char* label;
  };
  const Ref refs[] = {
      {&r.centralized, "#333", " stroke-dasharray=\"2,3\"", "centralized"},
      {&r.admm, "#333", " stroke-dasharray=\"8,4\"", "ADMM (non-private)"},
      {&r.majority, "#999", " stroke-dasharray=\"4,4\"", "majority class"},
  };
  // Series: band polygon, mean polyline, markers.
  for (std::size_t k = 0, series = 0; k < r.cells.size(); ++series) {
    std::size_t end = k;
    while (end < r.cells.size() && r.cells[end].algorithm == r.cells[k].algorithm) ++end;
    std::vector<const SweepCell*> pts;
    for (std::size_t j = k; j < end; ++j) pts.push_back(&r.cells[j]);
    std::sort(pts.begin(), pts.end(),
              [](const SweepCell* a, const SweepCell* b) { return a->epsilon < b->epsilon; });
    const std::string colour = kColours[series % std::size(kColours)];
    std::ostringstream band, line;
    bool has_band = true;
    for (const SweepCell* c : pts) has_band = has_band && std::isfinite(c->accuracy.low);
    if (has_band && pts.size() > 1) {
      for (const SweepCell* c : pts)
        band << X(c->epsilon) << ',' << Y(100 * c->accuracy.high) << ' ';
      for (auto it = pts.rbegin(); it != pts.rend(); ++it)
        band << X((*it)->epsilon) << ',' << Y(100 * (*it)->accuracy.low) << ' ';
      o << "<polygon points=\"" << band.str() << "\" fill=\"" << colour
        << "\" fill-opacity=\"0.18\" stroke=\"none\"/>\n";
    }
    for (const SweepCell* c : pts) {
      if (std::isfinite(c->accuracy.mean))
        line << X(c->epsilon) << ',' << Y(100 * c->accuracy.mean) << ' ';
    }
    o << "<polyline points=\"" << line.str() << "\" fill=\"none\" stroke=\"" << colour
      << "\" stroke-width=\"2\"/>\n";
    for (const SweepCell* c : pts) {
      if (!std::isfinite(c->accuracy.mean)) continue;
      o << "<circle cx=\"" << X(c->epsilon) << "\" cy=\"" << Y(100 * c->accuracy.mean)
        << "\" r=\"3.5\" fill=\"" << colour << "\"/>\n";
    }
    legend(colour, "", ChoiceName(r.cells[k].algorithm));
    k = end;
  }
  for (const Ref& ref : refs) {
    if (ref.stat->values.empty() || !std::isfinite(ref.stat->mean)) continue;
    const double y = Y(100 * ref.stat->mean);
    o << "<line x1=\"" << kLeft << "\" y1=\"" << y << "\" x2=\"" << kLeft + pw << "\" y2=\"" << y
      << "\" stroke=\"" << ref.colour << "\" stroke-width=\"1.5\"" << ref.dash << "/>\n";
    legend(ref.colour, ref.dash,
           std::string(ref.label) + " " + Fmt("%.1f%%", 100 * ref.stat->mean));
  }
  o << "</svg>\n";
  return o.str();
}

SweepCommand::SweepCommand(CLI::App& app) {
  sub_ = app.add_subcommand(
      "sweep",
      "Test accuracy against the total epsilon for private algorithms on one data set: each "
      "algorithm's noise\nis calibrated to every epsilon (tight, per node, at --delta) and run "
      "with --seeds repetitions\n(data/split/graph seed and noise seed vary: simulation mode), "
      "beside non-private ADMM, the\ncentralized optimum and the majority class. Writes "
      "DIR/sweep.csv and DIR/sweep.svg. The data,\ngraph and run flags are those of `dpadmm run`; "
      "algorithm parameters other than the\ncalibrated knob are each algorithm's defaults.");
  sub_->option_defaults()->always_capture_default();
  const std::string g = "Sweep";
  sub_->add_option("--algorithms", algorithms_,
                   "Comma-separated: dvp, pvp, madmm, private_mradmm, sharing (DP sharing), "
                   "and the baselines local, average, central")
      ->delimiter(',')
      ->type_name("LIST")
      ->group(g);
  sub_->add_option("--epsilons", epsilons_, "Total epsilons per node, comma-separated")
      ->delimiter(',')
      ->type_name("LIST")
      ->group(g);
  sub_->add_option("--seeds", seeds_, "Repetitions per point (seed, seed+1, ...)")
      ->type_name("N")
      ->group(g);
  sub_->add_option("--out", out_, "Output directory (sweep.csv, sweep.svg)")
      ->type_name("DIR")
      ->group(g);
  sub_->add_flag("--no-reference", no_reference_,
                 "Skip the non-private ADMM run (no ADMM, centralized and majority lines)")
      ->group(g);
  sub_->add_option("--config", config_, "Base spec (JSON) for the data and run settings")
      ->type_name("FILE")
      ->group(g);
  sub_->add_flag("--quiet,-q", quiet_, "No progress lines on stderr")->group(g);
}

void SweepCommand::AdoptRunFlags() {
  if (CLI::Option* option = sub_->get_option_no_throw("--delta")) {
    option->description(
        "Sweep: the delta of every total epsilon (consensus: the tight "
        "composition's; sharing: its total delta)");
    option->group("Sweep");
  }
}

void SweepCommand::TakeDelta() {
  // `--delta` is registered by the run's flags (sharing's delta); for the sweep it is the delta
  // of every total epsilon. Its value is taken here and the flag cleared, so that the run's flags
  // do not also apply it to the base spec's algorithm (which has no delta).
  CLI::Option* option = sub_->get_option_no_throw("--delta");
  if (option == nullptr || option->count() == 0) return;
  delta_ = option->as<double>();
  option->clear();
}

int SweepCommand::Run(const RunSpec& base, const runtime::StopToken* stop) const {
  if (base.target_epsilon > 0.0) {
    throw InputError(
        "--target-epsilon does not apply to `dpadmm sweep`: every run is calibrated "
        "to each of --epsilons");
  }
  SweepOptions o;
  o.base = base;
  for (const std::string& name : algorithms_) {
    o.algorithms.push_back(ParseChoice<Algorithm>(name, "--algorithms"));
  }
  o.epsilons = epsilons_;
  o.seeds = seeds_;
  o.delta = delta_;
  o.reference_lines = !no_reference_;
  o.Validate();
  std::error_code ec;
  std::filesystem::create_directories(out_, ec);
  if (ec) throw OutputError("--out " + out_ + ": cannot create the directory: " + ec.message());
  const std::string csv_path = (std::filesystem::path(out_) / "sweep.csv").string();
  const std::string svg_path = (std::filesystem::path(out_) / "sweep.svg").string();
  { AtomicFile probe(csv_path, "the sweep CSV"); }  // unwritable: fail before any run

  const auto progress = [this](int done, int total, const std::string& what) {
    if (!quiet_) std::cerr << "[" << done << "/" << total << "] " << what << '\n';
  };
  const SweepResult r = RunSweep(o, progress, stop);
  WriteFileAtomically(csv_path, "the sweep CSV", SweepToCsv(r));
  WriteFileAtomically(svg_path, "the sweep plot", SweepToSvg(r));

  // The table: one row per algorithm, one column per epsilon (mean [band] in %).
  std::ostringstream t;
  t << "Test accuracy (%) on " << r.dataset << ", mean [95% t-interval] over " << r.seeds
    << " seeds; tight total epsilon per node at delta " << Fmt("%g", r.delta) << "; " << r.noise
    << "\n";
  t << "algorithm       ";
  for (double e : o.epsilons) t << " | eps " << Fmt("%-17g", e);
  t << '\n';
  for (std::size_t k = 0; k < r.cells.size(); k += o.epsilons.size()) {
    std::string name = ChoiceName(r.cells[k].algorithm);
    name.resize(std::max<std::size_t>(name.size(), 16), ' ');
    t << name;
    for (std::size_t j = 0; j < o.epsilons.size() && k + j < r.cells.size(); ++j) {
      const SweepStat& s = r.cells[k + j].accuracy;
      std::string cell =
          Cell(100 * s.mean) + " [" + Cell(100 * s.low) + ", " + Cell(100 * s.high) + "]";
      cell.resize(std::max<std::size_t>(cell.size(), 21), ' ');
      t << " | " << cell;
    }
    t << '\n';
  }
  const auto line = [&](const char* name, const SweepStat& s) {
    if (s.values.empty()) return;
    t << name << Cell(100 * s.mean) << " [" << Cell(100 * s.low) << ", " << Cell(100 * s.high)
      << "]\n";
  };
  line("ADMM (non-private) ", r.admm);
  line("centralized        ", r.centralized);
  line("majority class     ", r.majority);
  t << "wrote " << csv_path << " and " << svg_path << '\n';
  std::cout << t.str();
  if (r.cancelled) {
    std::cerr << "dpadmm: sweep cancelled; the files hold the runs that finished\n";
    return 4;
  }
  return 0;
}

}  // namespace dpadmm::cli
