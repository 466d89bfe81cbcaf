// SPDX-License-Identifier: Apache-2.0
// Counter-based random streams. A Stream is keyed by (seed, node, round, purpose): the numbers a
// node draws in a round do not depend on which thread runs it or in which order nodes run, so a
// seeded run is bitwise reproducible for any engine and thread count, natively and in wasm.
// Streams serve data generation, split, partition, graph and random start. Privacy noise never
// comes from a Stream: it is drawn from the node's secret key (dpadmm/privacy/noise_key.h), whose
// KeyedStream uses the Purpose values below as part of its nonce.
// All transforms (uniform, normal, gamma) are written here so that no standard-library
// distribution (whose output differs between library implementations) is involved.
#pragma once

#include <cstdint>

namespace dpadmm {

// What a stream is drawn for; part of the key so that streams never overlap.
enum class Purpose : std::uint32_t {
  kGenerateData = 1,
  kSplit = 2,
  kPartition = 3,
  kGraph = 4,
  kInitialState = 5,
  kNoise = 6,
  kLabelNoise = 7,
  kObjectiveNoise = 8,
  kSampling = 9,
  kBoundsNoise = 10,  // the dp-bounds scaling's histogram release (privacy/bounds_release.h)
  kStandardizeNoise =
      11,  // the dp-standardize scaling's sums release (privacy/standardize_release.h)
};

class Stream {
 public:
  // node/round may be any value; use 0 where a stream is not tied to a node or round.
  Stream(std::uint64_t seed, std::uint64_t node, std::uint64_t round, Purpose purpose);

  std::uint64_t NextU64();
  // Uniform on [0, 1) with 53 random bits.
  double Uniform();
  // Uniform on (0, 1): never 0, safe to take the log of.
  double UniformOpen();
  // Uniform integer in [0, n), n > 0, without modulo bias.
  std::uint64_t UniformInt(std::uint64_t n);
  // Standard normal (Marsaglia polar method).
  double Normal();
  // Gamma(shape, 1) for shape > 0 (Marsaglia-Tsang).
  double Gamma(double shape);

 private:
  void Refill();
  std::uint64_t key_[2];
  std::uint64_t counter_[4];
  std::uint64_t buffer_[4];
  int next_ = 4;
  bool has_spare_normal_ = false;
  double spare_normal_ = 0.0;
};

}  // namespace dpadmm
