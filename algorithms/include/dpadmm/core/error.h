// SPDX-License-Identifier: Apache-2.0
// Bad input is reported by throwing InputError; an output that cannot be written, OutputError. Its
// message names what is wrong and where (file and line, config field, node). Algorithm outcomes
// (converged, diverged, cancelled, ...) are never exceptions: they are reported in a RunSummary.
#pragma once

#include <stdexcept>
#include <string>

namespace dpadmm {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A privacy target (target_epsilon) that no setting of the mechanism's noise knob reaches: bad
// input like any other (the command line's exit 2), a type of its own for front ends that name
// it (Python's dpadmm.PrivacyBudgetError).
class UnreachablePrivacyTarget : public InputError {
 public:
  using InputError::InputError;
};

// An output (the trace, the summary, a checkpoint) could not be written: the message names the
// path and the reason. The command line ends such a run with exit 6.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "path:line: message" -- the one format every loader uses.
[[noreturn]] void ThrowAt(const std::string& path, long long line, const std::string& message);

}  // namespace dpadmm
