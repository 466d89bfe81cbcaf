// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <vector>

#include "dpadmm/runtime/spsc_channel.h"

using dpadmm::runtime::SpscChannel;

TEST(SpscChannel, CapacityRoundsUpToPowerOfTwo) {
  EXPECT_EQ(SpscChannel(1, 4).capacity(), 1u);
  EXPECT_EQ(SpscChannel(3, 4).capacity(), 4u);
  EXPECT_EQ(SpscChannel(4, 4).capacity(), 4u);
  EXPECT_EQ(SpscChannel(5, 4).capacity(), 8u);
}

TEST(SpscChannel, FifoWithVariableLengths) {
  SpscChannel c(4, 3);
  const std::vector<double> a{1, 2, 3}, b{4}, e{};
  EXPECT_TRUE(c.TryPush(a));
  EXPECT_TRUE(c.TryPush(b));
  EXPECT_TRUE(c.TryPush(e));
  EXPECT_EQ(c.SizeApprox(), 3u);
  std::vector<double> out;
  ASSERT_TRUE(c.TryPop(out));
  EXPECT_EQ(out, a);
  ASSERT_TRUE(c.TryPop(out));
  EXPECT_EQ(out, b);
  ASSERT_TRUE(c.TryPop(out));
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(c.TryPop(out));
}

TEST(SpscChannel, FullAndEmpty) {
  SpscChannel c(2, 1);
  const std::vector<double> m{7};
  EXPECT_TRUE(c.TryPush(m));
  EXPECT_TRUE(c.TryPush(m));
  EXPECT_FALSE(c.TryPush(m));  // full
  bool ok = false;
  auto front = c.Front(&ok);
  ASSERT_TRUE(ok);
  EXPECT_EQ(front[0], 7.0);
  c.Pop();
  EXPECT_TRUE(c.TryPush(m));  // room again
  c.Front(&ok);
  c.Pop();
  c.Front(&ok);
  c.Pop();
  c.Front(&ok);
  EXPECT_FALSE(ok);
}

TEST(SpscChannel, WrapsAroundManyTimes) {
  SpscChannel c(4, 2);
  std::vector<double> out;
  for (int k = 0; k < 1000; ++k) {
    const std::vector<double> m{double(k), double(-k)};
    ASSERT_TRUE(c.TryPush(m));
    if (k % 3 == 2) {
      while (c.TryPop(out)) {
      }
    }
  }
  SUCCEED();
}

TEST(SpscChannel, TooLongMessageIsRejected) {
  SpscChannel c(2, 2);
  const std::vector<double> m{1, 2, 3};
  EXPECT_THROW(c.TryPush(m), std::length_error);
  EXPECT_EQ(c.SizeApprox(), 0u);
}
