// SPDX-License-Identifier: Apache-2.0
// TEST-ONLY: weakens every Release constructed on the calling thread while a scope is alive
// (each noise's scale multiplied by `scale`, e.g. 0.1 = noise divided by 10), so that the
// privacy audit's tests can check that a broken mechanism is caught. A private header of the
// algorithms (not installed, not under include/): nothing that parses a spec, a command line or
// a wasm call can set it; the audit reaches it only through its test hooks
// (tools/audit_testing.h), which the command and the bindings never use.
#pragma once

namespace dpadmm {
namespace detail {
// The current thread's scale (1 = the shipped mechanisms); defined in release.cpp.
double& ThreadNoiseScale();
}  // namespace detail

class ScopedNoiseWeakeningForTests {
 public:
  explicit ScopedNoiseWeakeningForTests(double scale) : saved_(detail::ThreadNoiseScale()) {
    detail::ThreadNoiseScale() = scale;
  }
  ~ScopedNoiseWeakeningForTests() { detail::ThreadNoiseScale() = saved_; }
  ScopedNoiseWeakeningForTests(const ScopedNoiseWeakeningForTests&) = delete;
  ScopedNoiseWeakeningForTests& operator=(const ScopedNoiseWeakeningForTests&) = delete;

 private:
  double saved_;
};

}  // namespace dpadmm
