// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/privacy/noise_key.h"

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>

#ifdef __EMSCRIPTEN__
#include <unistd.h>
#else
#include <sys/random.h>
#endif

#include "core/random_transforms.h"
#include "dpadmm/privacy/chacha20.h"

namespace dpadmm {
namespace {

// Writes zeros through a volatile pointer so the compiler cannot drop the wipe as a dead store.
void SecureZero(void* p, std::size_t n) noexcept {
  volatile unsigned char* b = static_cast<volatile unsigned char*>(p);
  for (std::size_t k = 0; k < n; ++k) b[k] = 0;
}

void FillFromOs(unsigned char* out, std::size_t n) {
#ifdef __EMSCRIPTEN__
  // Emscripten's getentropy() reads crypto.getRandomValues (browser) or crypto.randomBytes
  // (node); at most 256 bytes per call.
  if (n > 256 || getentropy(out, n) != 0) {
    throw std::runtime_error("noise key: getentropy() failed: " + std::string(strerror(errno)));
  }
#else
  std::size_t done = 0;
  while (done < n) {
    const ssize_t got = getrandom(out + done, n - done, 0);
    if (got < 0) {
      if (errno == EINTR) continue;  // interrupted before any byte: try again
      throw std::runtime_error("noise key: getrandom() failed: " + std::string(strerror(errno)));
    }
    done += static_cast<std::size_t>(got);  // short reads continue where they stopped
  }
#endif
}

}  // namespace

NoiseKey NoiseKey::FromEntropy() {
  NoiseKey key;
  unsigned char bytes[32];
  FillFromOs(bytes, sizeof bytes);
  std::memcpy(key.words_.data(), bytes, sizeof bytes);
  SecureZero(bytes, sizeof bytes);
  return key;
}

NoiseKey NoiseKey::FromSeed(std::uint64_t noise_seed, std::uint64_t node) {
  NoiseKey key;
  const std::uint32_t seed_key[8] = {static_cast<std::uint32_t>(noise_seed),
                                     static_cast<std::uint32_t>(noise_seed >> 32),
                                     0,
                                     0,
                                     0,
                                     0,
                                     0,
                                     0};
  const std::uint32_t nonce[3] = {static_cast<std::uint32_t>(node),
                                  static_cast<std::uint32_t>(node >> 32), 0x6b65796eu};
  std::uint32_t block[16];
  ChaCha20Block(seed_key, 0, nonce, block);
  for (int k = 0; k < 8; ++k) key.words_[static_cast<std::size_t>(k)] = block[k];
  SecureZero(block, sizeof block);
  return key;
}

NoiseKey NoiseKey::Make(const std::optional<std::uint64_t>& noise_seed, std::uint64_t node) {
  return noise_seed ? FromSeed(*noise_seed, node) : FromEntropy();
}

NoiseKey::NoiseKey(NoiseKey&& other) noexcept : words_(other.words_) { other.Wipe(); }

NoiseKey& NoiseKey::operator=(NoiseKey&& other) noexcept {
  if (this != &other) {
    words_ = other.words_;
    other.Wipe();
  }
  return *this;
}

NoiseKey::~NoiseKey() { Wipe(); }

void NoiseKey::Wipe() noexcept { SecureZero(words_.data(), sizeof(words_)); }

KeyedStream::KeyedStream(const NoiseKey& key, std::uint64_t round, Purpose purpose)
    : nonce_{static_cast<std::uint32_t>(round), static_cast<std::uint32_t>(round >> 32),
             static_cast<std::uint32_t>(purpose)} {
  for (int k = 0; k < 8; ++k) key_[k] = key.words_[static_cast<std::size_t>(k)];
}

KeyedStream::~KeyedStream() {
  SecureZero(key_, sizeof key_);
  SecureZero(buffer_, sizeof buffer_);
}

void KeyedStream::Refill() {
  if (counter_ == 0xffffffffu) {
    // 2^32 blocks (256 GiB of keystream) per (round, purpose): never reached by a run.
    throw std::logic_error("KeyedStream: keystream exhausted");
  }
  ChaCha20Block(key_, counter_++, nonce_, buffer_);
  next_ = 0;
}

std::uint32_t KeyedStream::NextU32() {
  if (next_ == 16) Refill();
  return buffer_[next_++];
}

std::uint64_t KeyedStream::NextU64() {
  const std::uint64_t lo = NextU32();
  const std::uint64_t hi = NextU32();
  return lo | (hi << 32);
}

double KeyedStream::Uniform() { return detail::UniformOf(*this); }
double KeyedStream::UniformOpen() { return detail::UniformOpenOf(*this); }
std::uint64_t KeyedStream::UniformInt(std::uint64_t n) { return detail::UniformIntOf(*this, n); }

Uint128 KeyedStream::UniformInt128(Uint128 n) {
  using U = Uint128;
  if (n == 0) throw std::logic_error("KeyedStream::UniformInt128: n must be > 0");
  if (n <= ~std::uint64_t{0}) return UniformInt(static_cast<std::uint64_t>(n));
  // Rejection on the smallest power-of-two range covering n: each try succeeds with
  // probability > 1/2.
  int bits = 0;
  for (U m = n - 1; m != 0; m >>= 1) ++bits;
  const U mask = bits == 128 ? ~U{0} : ((U{1} << bits) - 1);
  for (;;) {
    const U r = ((static_cast<U>(NextU64()) << 64) | NextU64()) & mask;
    if (r < n) return r;
  }
}

bool KeyedStream::Bit() {
  if (bits_left_ == 0) {
    bits_ = NextU32();
    bits_left_ = 32;
  }
  const bool b = (bits_ & 1u) != 0;
  bits_ >>= 1;
  --bits_left_;
  return b;
}

double KeyedStream::Normal() { return detail::NormalOf(*this, has_spare_normal_, spare_normal_); }

double KeyedStream::Gamma(double shape) {
  return detail::GammaOf(*this, shape, has_spare_normal_, spare_normal_);
}

}  // namespace dpadmm
