// SPDX-License-Identifier: Apache-2.0
// Two threads, millions of messages: none lost, none duplicated, none reordered, contents
// intact. Uses std::thread only so that it is meaningful under ThreadSanitizer.
#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "dpadmm/runtime/spsc_channel.h"

using dpadmm::runtime::SpscChannel;

namespace {

void Stress(std::size_t capacity, std::int64_t messages, std::size_t max_len) {
  SpscChannel c(capacity, max_len);
  std::thread producer([&] {
    std::vector<double> m(max_len);
    for (std::int64_t k = 0; k < messages; ++k) {
      const std::size_t len = 1 + static_cast<std::size_t>(k) % max_len;
      for (std::size_t j = 0; j < len; ++j)
        m[j] = static_cast<double>(k * 8 + static_cast<std::int64_t>(j));
      c.Push({m.data(), len});
    }
  });
  std::int64_t received = 0;
  bool in_order = true, intact = true;
  while (received < messages) {
    bool ok = false;
    const auto m = c.Front(&ok);
    if (!ok) {
      std::this_thread::yield();
      continue;
    }
    const std::size_t len = 1 + static_cast<std::size_t>(received) % max_len;
    if (m.size() != len) in_order = false;
    for (std::size_t j = 0; j < m.size(); ++j) {
      if (m[j] != static_cast<double>(received * 8 + static_cast<std::int64_t>(j))) intact = false;
    }
    c.Pop();
    ++received;
  }
  producer.join();
  EXPECT_TRUE(in_order);
  EXPECT_TRUE(intact);
  bool ok = true;
  c.Front(&ok);
  EXPECT_FALSE(ok) << "extra message after the last one";
}

}  // namespace

TEST(SpscChannelStress, TwoMillionSmallMessagesCapacityTwo) { Stress(2, 2'000'000, 1); }
TEST(SpscChannelStress, OneMillionVariableMessagesCapacityFour) { Stress(4, 1'000'000, 5); }
TEST(SpscChannelStress, HalfMillionModelSizedMessages) { Stress(64, 500'000, 8); }
