// SPDX-License-Identifier: Apache-2.0
// The parse step of the dpadmm command without the run: parses argv, builds and validates the
// spec, checks outputs and size limits, and returns the exit code the command would end with
// before loading anything (0 = the run would start). For the command-line fuzzer; the binary
// built with DPADMM_CLI_NO_MAIN defined has no main().
#pragma once

#include <ostream>

namespace dpadmm::cli {

int CheckCommandLine(int argc, char** argv, std::ostream& err);

}  // namespace dpadmm::cli
