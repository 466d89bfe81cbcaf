// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/privacy/chacha20.h"

namespace dpadmm {
namespace {

constexpr std::uint32_t Rotl(std::uint32_t v, int c) { return (v << c) | (v >> (32 - c)); }

inline void QuarterRound(std::uint32_t* x, int a, int b, int c, int d) {
  x[a] += x[b];
  x[d] ^= x[a];
  x[d] = Rotl(x[d], 16);
  x[c] += x[d];
  x[b] ^= x[c];
  x[b] = Rotl(x[b], 12);
  x[a] += x[b];
  x[d] ^= x[a];
  x[d] = Rotl(x[d], 8);
  x[c] += x[d];
  x[b] ^= x[c];
  x[b] = Rotl(x[b], 7);
}

inline std::uint32_t Load32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

}  // namespace

void ChaCha20Block(const std::uint32_t key[8], std::uint32_t counter, const std::uint32_t nonce[3],
                   std::uint32_t out[16]) {
  // RFC 8439 2.3: constants "expand 32-byte k", key, counter, nonce; 20 rounds (10 double
  // rounds: columns then diagonals); the input state is added to the result.
  std::uint32_t state[16] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u, key[0], key[1],
                             key[2],      key[3],      key[4],      key[5],      key[6], key[7],
                             counter,     nonce[0],    nonce[1],    nonce[2]};
  std::uint32_t x[16];
  for (int k = 0; k < 16; ++k) x[k] = state[k];
  for (int k = 0; k < 10; ++k) {
    QuarterRound(x, 0, 4, 8, 12);
    QuarterRound(x, 1, 5, 9, 13);
    QuarterRound(x, 2, 6, 10, 14);
    QuarterRound(x, 3, 7, 11, 15);
    QuarterRound(x, 0, 5, 10, 15);
    QuarterRound(x, 1, 6, 11, 12);
    QuarterRound(x, 2, 7, 8, 13);
    QuarterRound(x, 3, 4, 9, 14);
  }
  for (int k = 0; k < 16; ++k) out[k] = x[k] + state[k];
}

void ChaCha20Xor(const std::uint8_t key[32], std::uint32_t counter, const std::uint8_t nonce[12],
                 const std::uint8_t* in, std::uint8_t* out, std::size_t length) {
  std::uint32_t k[8], n[3], block[16];
  for (int i = 0; i < 8; ++i) k[i] = Load32(key + 4 * i);
  for (int i = 0; i < 3; ++i) n[i] = Load32(nonce + 4 * i);
  for (std::size_t pos = 0; pos < length; pos += 64, ++counter) {
    ChaCha20Block(k, counter, n, block);
    for (std::size_t j = 0; j < 64 && pos + j < length; ++j) {
      const auto byte = static_cast<std::uint8_t>(block[j / 4] >> (8 * (j % 4)));
      out[pos + j] = in[pos + j] ^ byte;
    }
  }
  // The key schedule copies are secret material.
  volatile std::uint32_t* wipe = k;
  for (int i = 0; i < 8; ++i) wipe[i] = 0;
}

}  // namespace dpadmm
