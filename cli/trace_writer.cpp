// SPDX-License-Identifier: Apache-2.0
#include "trace_writer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include "command_common.h"
#include "dpadmm/core/error.h"

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

namespace {

constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

std::uint64_t Fnv1a(std::uint64_t hash, const char* data, std::size_t n) {
  for (std::size_t k = 0; k < n; ++k) {
    hash ^= static_cast<unsigned char>(data[k]);
    hash *= kFnvPrime;
  }
  return hash;
}

}  // namespace

void TraceWriter::Count(const std::string& text) {
  hash_ = Fnv1a(hash_, text.data(), text.size());
  bytes_ += text.size();
}

std::string TraceWriter::Mark() const {
  return std::to_string(bytes_) + ' ' + std::to_string(rows_) + ' ' + std::to_string(hash_);
}

void TraceWriter::ContinueFrom(const std::string& mark, std::int64_t rows,
                               const std::string& checkpoint) {
  const std::string& path = file_.target();
  std::uint64_t bytes = 0, hash = 0;
  std::int64_t mark_rows = -1;
  std::istringstream in(mark);
  if (!(in >> bytes >> mark_rows >> hash) || mark_rows != rows) {
    throw InputError("checkpoint " + checkpoint +
                     ": it describes no trace (written by a dpadmm without trace checksums, or "
                     "through the library without a trace); restart the run");
  }
  const std::string refused = "--trace " + path +
                              ": the resumed run appends to the trace the run of checkpoint " +
                              checkpoint + " wrote (" + std::to_string(rows) + " rows, " +
                              std::to_string(bytes) + " bytes)";
  std::ifstream source(path, std::ios::binary);
  if (!source) {
    throw InputError(refused + ", and there is no trace at this path; give that run's --trace");
  }
  std::uint64_t seen = Fnv1a(0xcbf29ce484222325ULL, nullptr, 0);
  std::string copy;
  std::vector<char> block(1 << 16);
  std::uint64_t left = bytes;
  while (left > 0) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(left, block.size()));
    source.read(block.data(), static_cast<std::streamsize>(want));
    const std::size_t got = static_cast<std::size_t>(source.gcount());
    if (got == 0) {
      throw InputError(refused + "; this trace is shorter: not that run's trace, or cut");
    }
    seen = Fnv1a(seen, block.data(), got);
    copy.append(block.data(), got);
    left -= got;
    // Copied in blocks of up to 64 MB, so that a long trace is never held whole.
    if (copy.size() >= (64u << 20)) {
      file_.Write(copy);
      copy.clear();
    }
  }
  if (seen != hash) {
    throw InputError(refused + "; this trace's first " + std::to_string(rows) +
                     " rows differ from them (edited, or another run's trace): refused");
  }
  file_.Write(copy);
  bytes_ = bytes;
  hash_ = hash;
  rows_ = rows;
}

void TraceWriter::KeepKilledTrace(const std::string& path) {
  const std::string partial = path + ".partial";
  std::ifstream in(partial, std::ios::binary);
  if (!in) return;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  const std::size_t end = text.rfind('\n');
  // Through TRACE.partial again (rewritten from memory) and renamed onto TRACE.
  WriteFileAtomically(path, "the trace", end == std::string::npos ? "" : text.substr(0, end + 1));
}

}  // namespace dpadmm::cli
