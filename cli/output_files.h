// SPDX-License-Identifier: Apache-2.0
// Output files of the dpadmm command that lose nothing: each is written to TARGET.partial in the
// same directory and renamed onto TARGET when complete (rename within a directory is atomic), so
// that TARGET is either the previous file or a complete new one. A write error is caught at the
// first failing write (every write is flushed and checked) and names the path. Targets that exist
// and are not regular files (/dev/stdout, /dev/full, a FIFO) are written in place.
#pragma once

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "dpadmm/core/error.h"

namespace dpadmm::cli {

// An output file could not be written (exit code 6); the message names the path and the reason.
using dpadmm::OutputError;

class AtomicFile {
 public:
  // Opens TARGET.partial (or TARGET itself, see above); throws OutputError naming `what`
  // ("the trace") and the path if it cannot. `mode` is the permission of a new file (0600 for
  // files with private content).
  AtomicFile(std::string target, std::string what, unsigned mode = 0666);
  ~AtomicFile();  // not committed: the partial file is removed
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Appends and flushes; throws OutputError at the first failure.
  void Write(const std::string& text);
  // Closes and renames onto the target; throws OutputError if anything failed.
  void Commit();
  // Removes the partial file (nothing happens to the target).
  void Discard();
  // After a failed Write: cuts the partial file to its first `bytes` bytes (those written
  // whole) and renames it onto the target, ignoring further errors (no space is needed to cut
  // a file or to rename it). A file written in place is left as it is.
  void CommitPrefix(std::uint64_t bytes);

  const std::string& target() const { return target_; }
  const std::string& written_path() const { return path_; }

 private:
  [[noreturn]] void Throw(const std::string& action, int error_number);

  std::string target_, what_, path_;
  std::FILE* file_ = nullptr;
  bool in_place_ = false;
  bool done_ = false;
};

// Writes `text` to `target` through an AtomicFile.
void WriteFileAtomically(const std::string& target, const std::string& what,
                         const std::string& text, unsigned mode = 0666);

// Throws InputError if two of the named outputs ("--trace", path) are the same file (compared by
// canonical path, so "./a.csv" and "a.csv" clash), or if an output is one of the inputs. Empty
// paths are ignored.
void CheckDistinctFiles(const std::vector<std::pair<std::string, std::string>>& outputs,
                        const std::vector<std::pair<std::string, std::string>>& inputs);

}  // namespace dpadmm::cli
