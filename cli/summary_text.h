// SPDX-License-Identifier: Apache-2.0
// The human summary of a run on stdout (and its warnings on stderr).
#pragma once

#include <string>

#include "dpadmm/run/run.h"
#include "dpadmm/run/run_spec.h"
#include "trace_writer.h"

namespace dpadmm::cli {

// `wall_seconds`: the command's time from start to end; `trace` and `summary_path` are named.
void PrintSummary(const RunSpec& spec, const RunSummary& s, double wall_seconds,
                  const TraceWriter& trace, const std::string& summary_path);

}  // namespace dpadmm::cli
