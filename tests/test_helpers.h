// SPDX-License-Identifier: Apache-2.0
// Small helpers shared by the data, graph and partition tests.
#pragma once

#include <atomic>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "dpadmm/core/error.h"

namespace dpadmm::test {

inline std::string Fixture(const std::string& name) {
  return std::string(DPADMM_TEST_FIXTURES) + "/" + name;
}

// Writes `content` verbatim to a fresh file under ::testing::TempDir() and returns its path.
// The process id keeps concurrent test runs apart.
inline std::string WriteTempFile(const std::string& name, const std::string& content) {
  static std::atomic<int> counter{0};
  const std::string path = ::testing::TempDir() + "dpadmm_" + std::to_string(::getpid()) + "_" +
                           std::to_string(counter++) + "_" + name;
  std::ofstream out(path, std::ios::binary);
  out << content;
  return path;
}

// Success iff fn throws InputError whose message contains every string of `parts`.
inline ::testing::AssertionResult ThrowsInputError(const std::function<void()>& fn,
                                                   std::initializer_list<std::string> parts) {
  try {
    fn();
  } catch (const InputError& e) {
    const std::string message = e.what();
    for (const std::string& part : parts) {
      if (message.find(part) == std::string::npos) {
        return ::testing::AssertionFailure()
               << "message \"" << message << "\" does not contain \"" << part << "\"";
      }
    }
    return ::testing::AssertionSuccess() << message;
  }
  return ::testing::AssertionFailure() << "no InputError thrown";
}

}  // namespace dpadmm::test
