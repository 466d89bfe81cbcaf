// SPDX-License-Identifier: Apache-2.0
// The C++ side of the Python calling-overhead benchmark (bench/python_overhead.py): the run an
// estimator's fit makes, through the C++ API, timed per repetition.
//
//   bench_python_overhead SPEC.json TRAIN.csv REPS [FRAGMENT]
//
// FRAGMENT = N: first leave the heap with N / 2 free chunks of mixed sizes (N blocks of 24..4000
// bytes allocated, every other one freed), as a long-lived process's heap is
// (bench/python_run_heap.py; bench/README, "Where the in-run difference comes from").
// REPS = 0: one repetition per line read from stdin (the Python script alternates the two
// sides repetition by repetition, so that both see the same load).
//
// Each repetition does what dpadmm.ConsensusClassifier.fit does below Python: copy the training
// rows into a Dataset (the binding copies numpy rows once), build an Experiment from the spec
// and the in-memory data, run it, and make the Model. The CSV is read once, outside the timing.
// Prints one line per repetition ("seconds S run_seconds R cpu_seconds C cpu_with_destruction D")
// and the median: C stops before the Experiment, summary and model are destroyed, D after (like
// a fit, whose Experiment is destroyed before it returns).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "dpadmm/core/error.h"
#include "dpadmm/data/loaders.h"
#include "dpadmm/persistence/model.h"
#include "dpadmm/run/run.h"
#include "dpadmm/run/spec_json.h"

namespace {
// CPU time of the calling thread (the run computes on it: serial engine), which a loaded
// machine does not inflate the way it inflates wall time.
double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Blocks of 24..4000 bytes from malloc, every other one freed: the kept ones are returned (and
// never freed) so that the free chunks between them stay.
std::vector<void*> FragmentHeap(int blocks) {
  static constexpr std::size_t kSizes[] = {24, 40, 72, 136, 264, 520, 1040, 4000};
  std::vector<void*> taken;
  std::uint32_t state = 1;
  for (int i = 0; i < blocks; ++i) {
    state = state * 1103515245u + 12345u;
    taken.push_back(std::malloc(kSizes[(state >> 16) % 8]));
  }
  std::vector<void*> kept;
  for (std::size_t i = 0; i < taken.size(); ++i) {
    if (i % 2 == 0) {
      std::free(taken[i]);
    } else {
      kept.push_back(taken[i]);
    }
  }
  return kept;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::cerr << "usage: bench_python_overhead SPEC.json TRAIN.csv REPS [FRAGMENT]\n";
    return 2;
  }
  const std::vector<void*> kept = FragmentHeap(argc == 5 ? std::atoi(argv[4]) : 0);
  try {
    std::ifstream in(argv[1]);
    std::stringstream text;
    text << in.rdbuf();
    dpadmm::RunSpec spec = dpadmm::SpecFromJson(text.str(), argv[1]);
    spec.Validate();
    const dpadmm::Dataset rows = dpadmm::LoadCsv(argv[2]);
    const int reps = std::atoi(argv[3]);
    std::vector<double> seconds;
    double checksum = 0.0;
    std::string line;
    for (int r = 0; reps == 0 ? static_cast<bool>(std::getline(std::cin, line)) : r < reps; ++r) {
      const double cpu0 = ThreadCpuSeconds();
      double cpu = 0.0, run_seconds = 0.0;
      {
        const auto t0 = std::chrono::steady_clock::now();
        dpadmm::Dataset train = rows;  // the binding's one copy of the caller's rows
        const dpadmm::Experiment experiment(spec, std::move(train), dpadmm::Dataset{});
        const dpadmm::RunSummary summary = experiment.Run();
        const dpadmm::Model model = dpadmm::Model::FromRun(summary, spec);
        seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        checksum += model.weights().sum();
        run_seconds = summary.seconds;
        cpu = ThreadCpuSeconds() - cpu0;
      }
      const double cpu_with_destruction = ThreadCpuSeconds() - cpu0;
      std::cout << "seconds " << seconds.back() << " run_seconds " << run_seconds << " cpu_seconds "
                << cpu << " cpu_with_destruction " << cpu_with_destruction << std::endl;
    }
    if (seconds.empty()) return 0;
    std::sort(seconds.begin(), seconds.end());
    std::cout << "median " << seconds[seconds.size() / 2] << "\nchecksum " << checksum << "\n";
  } catch (const dpadmm::InputError& e) {
    std::cerr << "bench_python_overhead: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
