// SPDX-License-Identifier: Apache-2.0
// The cost of the secure noise path: per draw, the Philox Stream (data, graph, partition; the
// noise source before keyed streams) against the keyed ChaCha20 stream, and per sampler the
// old floating-point draw against the exact or snapped one; then a whole DVP round on UCI Adult
// with N = 5 nodes (the setting of bench_admm's N = 5, alpha = 0.5, simulation mode), serial
// engine. The round benchmark uses only the public run API, so the same file built against an
// older library measures the old round (privacy/README.md lists the figures).
//   bench_noise --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>

#include <Eigen/Dense>

#include "dpadmm/core/random.h"
#include "dpadmm/privacy/noise.h"
#include "dpadmm/run/run.h"
#if __has_include("dpadmm/privacy/samplers.h")
#include "dpadmm/privacy/noise_key.h"
#include "dpadmm/privacy/samplers.h"
#define DPADMM_HAVE_KEYED_NOISE 1
#endif

namespace {

// --- per draw ---------------------------------------------------------------------------------

void PhiloxU64(benchmark::State& state) {
  dpadmm::Stream s(1, 2, 3, dpadmm::Purpose::kNoise);
  for (auto _ : state) benchmark::DoNotOptimize(s.NextU64());
}
BENCHMARK(PhiloxU64);

void PhiloxNormal(benchmark::State& state) {
  dpadmm::Stream s(1, 2, 3, dpadmm::Purpose::kNoise);
  for (auto _ : state) benchmark::DoNotOptimize(s.Normal());
}
BENCHMARK(PhiloxNormal);

// Old per-coordinate Gaussian (000 eq. (16)): sigma * N(0, 1) in double precision.
void PhiloxGaussianCoordinate(benchmark::State& state) {
  dpadmm::Stream s(1, 2, 3, dpadmm::Purpose::kNoise);
  for (auto _ : state) benchmark::DoNotOptimize(0.01 * s.Normal());
}
BENCHMARK(PhiloxGaussianCoordinate);

// Old randomized response: one uniform compared with 1 / (1 + e^eps).
void PhiloxRandomizedResponse(benchmark::State& state) {
  dpadmm::Stream s(1, 2, 3, dpadmm::Purpose::kLabelNoise);
  const double p = 1.0 / (1.0 + std::exp(1.0));
  for (auto _ : state) benchmark::DoNotOptimize(s.Uniform() < p);
}
BENCHMARK(PhiloxRandomizedResponse);

// Old l2-Laplace vector (d = 100): Gamma norm and normal direction, per vector.
void PhiloxL2Laplace100(benchmark::State& state) {
  dpadmm::Stream s(1, 2, 3, dpadmm::Purpose::kNoise);
  Eigen::VectorXd v(100);
  for (auto _ : state) {
    dpadmm::DrawL2Laplace(s, 2.0, v);
    benchmark::DoNotOptimize(v.data());
  }
}
BENCHMARK(PhiloxL2Laplace100);

#ifdef DPADMM_HAVE_KEYED_NOISE
void ChaChaU64(benchmark::State& state) {
  const dpadmm::NoiseKey key = dpadmm::NoiseKey::FromSeed(1, 2);
  dpadmm::KeyedStream s(key, 3, dpadmm::Purpose::kNoise);
  for (auto _ : state) benchmark::DoNotOptimize(s.NextU64());
}
BENCHMARK(ChaChaU64);

void ChaChaNormal(benchmark::State& state) {
  const dpadmm::NoiseKey key = dpadmm::NoiseKey::FromSeed(1, 2);
  dpadmm::KeyedStream s(key, 3, dpadmm::Purpose::kNoise);
  for (auto _ : state) benchmark::DoNotOptimize(s.Normal());
}
BENCHMARK(ChaChaNormal);

// New per-coordinate Gaussian: the exact discrete Gaussian on the 2^-16 grid (sigma = 0.01).
void ExactDiscreteGaussianCoordinate(benchmark::State& state) {
  const dpadmm::NoiseKey key = dpadmm::NoiseKey::FromSeed(1, 2);
  dpadmm::KeyedStream s(key, 3, dpadmm::Purpose::kNoise);
  Eigen::VectorXd v(1);
  for (auto _ : state) {
    dpadmm::DrawDiscreteGaussianGrid(s, 0.01, v);
    benchmark::DoNotOptimize(v[0]);
  }
}
BENCHMARK(ExactDiscreteGaussianCoordinate);

void ExactDiscreteLaplace(benchmark::State& state) {
  const dpadmm::NoiseKey key = dpadmm::NoiseKey::FromSeed(1, 2);
  dpadmm::KeyedStream s(key, 3, dpadmm::Purpose::kNoise);
  for (auto _ : state) benchmark::DoNotOptimize(dpadmm::SampleDiscreteLaplace(s, 1, 655));
}
BENCHMARK(ExactDiscreteLaplace);

void ExactRandomizedResponse(benchmark::State& state) {
  const dpadmm::NoiseKey key = dpadmm::NoiseKey::FromSeed(1, 2);
  dpadmm::KeyedStream s(key, 3, dpadmm::Purpose::kLabelNoise);
  for (auto _ : state) benchmark::DoNotOptimize(dpadmm::SampleRandomizedResponseFlip(s, 1.0));
}
BENCHMARK(ExactRandomizedResponse);

// New l2-Laplace vector (d = 100) from the keyed stream, snapped to the grid.
void ChaChaL2Laplace100Snapped(benchmark::State& state) {
  const dpadmm::NoiseKey key = dpadmm::NoiseKey::FromSeed(1, 2);
  dpadmm::KeyedStream s(key, 3, dpadmm::Purpose::kNoise);
  Eigen::VectorXd v(100);
  for (auto _ : state) {
    dpadmm::DrawL2Laplace(s, 2.0, v);
    v = v.unaryExpr([](double x) { return dpadmm::RoundToGrid(x); });
    benchmark::DoNotOptimize(v.data());
  }
}
BENCHMARK(ChaChaL2Laplace100Snapped);
#endif

// --- a whole DVP round on Adult, N = 5 ---------------------------------------------------------

constexpr int kRounds = 20;

std::string DataDir() {
  const char* env = std::getenv("DPADMM_DATA");
  return env != nullptr ? env : DPADMM_SHARED_DATA;
}

void DvpRoundAdult(benchmark::State& state) {
  static std::unique_ptr<dpadmm::Experiment> experiment;
  if (!experiment) {
    try {
      dpadmm::RunSpec spec;
      spec.data.source = dpadmm::DataSource::kAdult;
      spec.data.train_path = DataDir() + "/adult/adult.data";
      spec.data.test_path = DataDir() + "/adult/adult.test";
      spec.graph.topology = dpadmm::Topology::kRandom;
      spec.graph.nodes = 5;
      spec.graph.edges = 7;
      spec.algorithm.Select(dpadmm::Algorithm::kDvp);
      spec.algorithm.As<dpadmm::DvpParams>().alpha = 0.5;
      spec.algorithm.C = 1750;
      spec.algorithm.rho = 0.22;
      spec.algorithm.eta = 0.1;
      spec.compute_optimum = false;
      spec.metrics_every = 0;
      spec.iterations = kRounds;
      spec.noise_seed = 7;  // simulation mode (ignored by a library without keyed noise)
      experiment = std::make_unique<dpadmm::Experiment>(spec);
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
      return;
    }
  }
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const dpadmm::RunSummary s = experiment->RunOn(dpadmm::runtime::EngineKind::kSerial, 1);
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(sec / kRounds);
    benchmark::DoNotOptimize(s.final.train_loss);
  }
}
BENCHMARK(DvpRoundAdult)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
