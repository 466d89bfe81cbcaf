// SPDX-License-Identifier: Apache-2.0
// Small helpers shared by the data, graph and partition tests.
#pragma once

#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <string>
#include <system_error>

#include <gtest/gtest.h>
#include <unistd.h>

#include "dpadmm/core/error.h"

namespace dpadmm::test {

inline std::string Fixture(const std::string& name) {
  return std::string(DPADMM_TEST_FIXTURES) + "/" + name;
}

// A directory of this test process under ::testing::TempDir() ($TMPDIR), created on first use
// and removed with everything in it when the process exits: the suite leaves no files behind
// (ctest's test `cleanup.temp_folder_unchanged` checks that).
class ProcessTempDir {
 public:
  static const std::string& Path() {
    static ProcessTempDir dir;
    return dir.path_;
  }
  ~ProcessTempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }

 private:
  ProcessTempDir() {
    std::string pattern = ::testing::TempDir() + "dpadmm_test_XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp " << pattern << " failed";
    }
    path_ = pattern + "/";
  }
  std::string path_;
};

// A path inside ProcessTempDir (the file is not created).
inline std::string TempPath(const std::string& name) { return ProcessTempDir::Path() + name; }

// Writes `content` verbatim to a fresh file inside ProcessTempDir and returns its path.
inline std::string WriteTempFile(const std::string& name, const std::string& content) {
  static std::atomic<int> counter{0};
  const std::string path = TempPath(std::to_string(counter++) + "_" + name);
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
