// SPDX-License-Identifier: Apache-2.0
// SpscChannel: a bounded, lock-free, single-producer/single-consumer queue of fixed-capacity
// message slots, all allocated when the channel is built.
//
// Contract: exactly one thread at a time may call the producer methods (TryPush, Push) and
// exactly one thread at a time may call the consumer methods (Front, Pop, TryPop); the two may
// be different threads running concurrently. A push that succeeds happens-before the pop that
// removes that message (release/acquire on the indices). Messages come out in the order they
// went in; none is lost or duplicated. No method allocates.
//
// A message is a run of up to `max_message_size` doubles; its length travels with it.
#pragma once

#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <new>
#include <span>
#include <stdexcept>
#include <thread>
#include <vector>

namespace dpadmm::runtime {

class SpscChannel {
 public:
  // capacity: number of messages the channel can hold (rounded up to a power of two, >= 1).
  SpscChannel(std::size_t capacity, std::size_t max_message_size)
      : mask_(RoundUpPow2(capacity) - 1),
        max_message_size_(max_message_size),
        payload_((mask_ + 1) * max_message_size),
        lengths_(mask_ + 1, 0) {}

  SpscChannel(const SpscChannel&) = delete;
  SpscChannel& operator=(const SpscChannel&) = delete;

  std::size_t capacity() const { return mask_ + 1; }
  std::size_t max_message_size() const { return max_message_size_; }

  // Producer: copies `message` into the next slot. False if the channel is full.
  // Throws std::length_error if the message is longer than max_message_size().
  bool TryPush(std::span<const double> message) {
    if (message.size() > max_message_size_)
      throw std::length_error("SpscChannel: message too long");
    const std::uint64_t tail = tail_.load(std::memory_order_relaxed);
    if (tail - head_cache_ > mask_) {
      head_cache_ = head_.load(std::memory_order_acquire);
      if (tail - head_cache_ > mask_) return false;
    }
    assert(message.size() <= max_message_size_ && "message longer than the channel's slots");
    const std::size_t slot = static_cast<std::size_t>(tail) & mask_;
    double* dst = payload_.data() + slot * max_message_size_;
    for (std::size_t k = 0; k < message.size(); ++k) dst[k] = message[k];
    lengths_[slot] = message.size();
    tail_.store(tail + 1, std::memory_order_release);
    return true;
  }
  // Producer: spins (yielding) until there is room.
  void Push(std::span<const double> message) {
    while (!TryPush(message)) std::this_thread::yield();
  }

  // Consumer: the oldest message, or an empty span with ok = false if the channel is empty.
  // The span stays valid until Pop().
  std::span<const double> Front(bool* ok) {
    const std::uint64_t head = head_.load(std::memory_order_relaxed);
    if (head == tail_cache_) {
      tail_cache_ = tail_.load(std::memory_order_acquire);
      if (head == tail_cache_) {
        *ok = false;
        return {};
      }
    }
    *ok = true;
    const std::size_t slot = static_cast<std::size_t>(head) & mask_;
    return {payload_.data() + slot * max_message_size_, lengths_[slot]};
  }
  // Consumer: removes the oldest message. Precondition: Front() returned ok.
  void Pop() { head_.store(head_.load(std::memory_order_relaxed) + 1, std::memory_order_release); }
  // Consumer: copies the oldest message into `out` (resized) and removes it.
  bool TryPop(std::vector<double>& out) {
    bool ok = false;
    const std::span<const double> m = Front(&ok);
    if (!ok) return false;
    out.assign(m.begin(), m.end());
    Pop();
    return true;
  }

  // Either side, approximate when the other side is active.
  std::size_t SizeApprox() const {
    return static_cast<std::size_t>(tail_.load(std::memory_order_acquire) -
                                    head_.load(std::memory_order_acquire));
  }

 private:
  static std::size_t RoundUpPow2(std::size_t n) {
    std::size_t p = 1;
    while (p < n) p <<= 1;
    return p;
  }
  static constexpr std::size_t kLine = 64;

  const std::size_t mask_;
  const std::size_t max_message_size_;
  std::vector<double> payload_;
  std::vector<std::size_t> lengths_;
  // Producer-owned and consumer-owned indices on separate cache lines; each side caches the
  // other's index to avoid touching the shared line on every call.
  alignas(kLine) std::atomic<std::uint64_t> tail_{0};
  std::uint64_t head_cache_ = 0;
  alignas(kLine) std::atomic<std::uint64_t> head_{0};
  std::uint64_t tail_cache_ = 0;
  [[maybe_unused]] char pad_[kLine - sizeof(std::uint64_t)] = {};
};

}  // namespace dpadmm::runtime
