// SPDX-License-Identifier: Apache-2.0
#include "trace_writer.h"

#include <cstring>

#include "command_common.h"

namespace dpadmm::cli {

TraceFormat ResolveTraceFormat(const std::string& path, const std::string& forced) {
  if (!forced.empty()) return ParseChoice<TraceFormat>(forced, "--trace-format");
  const auto ends_with = [&](const char* suffix) {
    const std::size_t n = std::strlen(suffix);
    return path.size() >= n && path.compare(path.size() - n, n, suffix) == 0;
  };
  if (ends_with(".csv")) return TraceFormat::kCsv;
  if (ends_with(".jsonl") || ends_with(".ndjson")) return TraceFormat::kJsonLines;
  Fail("--trace " + path +
       ": cannot tell the format from the extension (.csv or .jsonl); "
       "use --trace-format " +
       ChoiceList<TraceFormat>("|"));
}

}  // namespace dpadmm::cli
