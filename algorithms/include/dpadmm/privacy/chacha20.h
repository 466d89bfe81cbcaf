// SPDX-License-Identifier: Apache-2.0
// The ChaCha20 block function and stream cipher of RFC 8439 (256-bit key, 96-bit nonce, 32-bit
// block counter). It is the generator of every noise draw: a node's noise stream for
// (round, purpose) is the keystream of its secret NoiseKey with a nonce made from the pair
// (noise_key.h), so draws are unpredictable without the key and independent of the schedule.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dpadmm {

// RFC 8439 section 2.3: the 64-byte block for (key, counter, nonce), key as 8 little-endian
// words, nonce as 3 little-endian words; out receives the block's 16 words (serialise them
// little-endian for the byte stream).
void ChaCha20Block(const std::uint32_t key[8], std::uint32_t counter, const std::uint32_t nonce[3],
                   std::uint32_t out[16]);

// RFC 8439 section 2.4: out[k] = in[k] XOR keystream[k], keystream from block `counter` on.
// key is 32 bytes, nonce 12 bytes (byte order of the RFC).
void ChaCha20Xor(const std::uint8_t key[32], std::uint32_t counter, const std::uint8_t nonce[12],
                 const std::uint8_t* in, std::uint8_t* out, std::size_t length);

}  // namespace dpadmm
