// SPDX-License-Identifier: Apache-2.0
// Secret noise keys and the keyed noise streams drawn from them.
//
// Every node owns one NoiseKey (32 bytes). Two modes:
//   private mode (no noise seed): the key comes from the operating system's entropy source
//     (getrandom(2) natively, getentropy() = crypto.getRandomValues under Emscripten) when the
//     node is constructed, and is never stored, printed or written anywhere: the run's noise
//     cannot be reproduced, which is what makes the released values private;
//   simulation mode (RunSpec::noise_seed): the key is derived from (noise_seed, node), so a run
//     is reproducible bit for bit and NOT private (anyone with the seed can remove the noise).
//     Derivation: the first 32 bytes of the ChaCha20 block with key
//     (noise_seed low word, high word, 0, 0, 0, 0, 0, 0), counter 0 and nonce
//     (node low word, node high word, 0x6b65796e = "nyek").
// A node's stream for (round, purpose) is the ChaCha20 keystream under its key with nonce
// (round low word, round high word, purpose), counter from 0: stateless, so the draws do not
// depend on the schedule (same bits on every engine, thread count and in wasm).
//
// NoiseKey has no printing, no streaming operator and no copy; its bytes are wiped when it is
// destroyed or moved from. Only tests read it (through NoiseKeyTestAccess, defined in tests).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "dpadmm/core/random.h"

namespace dpadmm {

// 128-bit unsigned integers for the exact samplers' rationals (GCC and Clang, wasm included);
// __extension__ keeps -Wpedantic quiet about the non-standard type.
__extension__ typedef unsigned __int128 Uint128;

struct NoiseKeyTestAccess;

class NoiseKey {
 public:
  // A fresh key from the operating system (private mode). Throws std::runtime_error when the
  // entropy source fails (never a weaker fallback).
  static NoiseKey FromEntropy();
  // The simulation-mode key of `node` (derivation above).
  static NoiseKey FromSeed(std::uint64_t noise_seed, std::uint64_t node);
  // FromSeed when noise_seed is set, else FromEntropy.
  static NoiseKey Make(const std::optional<std::uint64_t>& noise_seed, std::uint64_t node);

  NoiseKey(NoiseKey&& other) noexcept;
  NoiseKey& operator=(NoiseKey&& other) noexcept;
  NoiseKey(const NoiseKey&) = delete;
  NoiseKey& operator=(const NoiseKey&) = delete;
  ~NoiseKey();

 private:
  friend class KeyedStream;
  friend struct NoiseKeyTestAccess;
  NoiseKey() = default;
  void Wipe() noexcept;
  std::array<std::uint32_t, 8> words_{};
};

// The ChaCha20 keystream of a key for (round, purpose), read as 64-bit words; the same
// transforms as Stream (core/random.h) for doubles. Holds a copy of the key words (wiped on
// destruction); not copyable.
class KeyedStream {
 public:
  KeyedStream(const NoiseKey& key, std::uint64_t round, Purpose purpose);
  KeyedStream(const KeyedStream&) = delete;
  KeyedStream& operator=(const KeyedStream&) = delete;
  ~KeyedStream();

  std::uint64_t NextU64();
  // 32 random bits (half a word: samplers that need few bits waste less keystream).
  std::uint32_t NextU32();
  // Uniform on [0, 1) with 53 random bits.
  double Uniform();
  // Uniform on (0, 1).
  double UniformOpen();
  // Uniform integer in [0, n), n > 0, without bias (rejection).
  std::uint64_t UniformInt(std::uint64_t n);
  // Uniform integer in [0, n), n > 0, 128-bit (the exact samplers' rationals).
  Uint128 UniformInt128(Uint128 n);
  // One fair bit.
  bool Bit();
  // Standard normal (Marsaglia polar), Gamma(shape, 1) (Marsaglia-Tsang).
  double Normal();
  double Gamma(double shape);

 private:
  void Refill();
  std::uint32_t key_[8];
  std::uint32_t nonce_[3];
  std::uint32_t counter_ = 0;
  std::uint32_t buffer_[16];
  int next_ = 16;
  std::uint32_t bits_ = 0;
  int bits_left_ = 0;
  bool has_spare_normal_ = false;
  double spare_normal_ = 0.0;
};

}  // namespace dpadmm
