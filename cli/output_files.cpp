// SPDX-License-Identifier: Apache-2.0
#include "output_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "dpadmm/core/error.h"

namespace dpadmm::cli {
namespace fs = std::filesystem;

namespace {

// True if `path` exists and is not a regular file (a device, a FIFO, a socket).
bool IsSpecialFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

std::string Canonical(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::absolute(path).lexically_normal().string() : p.string();
}

}  // namespace

AtomicFile::AtomicFile(std::string target, std::string what, unsigned mode)
    : target_(std::move(target)), what_(std::move(what)) {
  std::error_code ec;
  if (fs::is_directory(target_, ec)) {
    throw OutputError(target_ + ": cannot write " + what_ + ": it is a directory");
  }
  in_place_ = IsSpecialFile(target_);
  path_ = in_place_ ? target_ : target_ + ".partial";
  const int flags = in_place_ ? O_WRONLY : O_WRONLY | O_CREAT | O_TRUNC;
  const int fd = ::open(path_.c_str(), flags | O_CLOEXEC, static_cast<mode_t>(mode));
  if (fd < 0) {
    const int e = errno;
    throw OutputError(target_ + ": cannot create " + what_ +
                      (in_place_ ? "" : " (as " + path_ + ")") + ": " + std::strerror(e));
  }
  // An existing partial file keeps its old permissions through O_TRUNC: set them.
  if (!in_place_ && mode != 0666 && ::fchmod(fd, static_cast<mode_t>(mode)) != 0) {
    const int e = errno;
    ::close(fd);
    Throw("cannot set the permissions of", e);
  }
  file_ = ::fdopen(fd, "wb");
  if (file_ == nullptr) {
    const int e = errno;
    ::close(fd);
    Throw("cannot open", e);
  }
}

AtomicFile::~AtomicFile() {
  if (!done_) Discard();
}

void AtomicFile::Throw(const std::string& action, int error_number) {
  throw OutputError(path_ + ": " + action + " " + what_ + ": " + std::strerror(error_number));
}

void AtomicFile::Write(const std::string& text) {
  if (file_ == nullptr) throw OutputError(path_ + ": " + what_ + " is already closed");
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0) {
    Throw("cannot write", errno != 0 ? errno : EIO);
  }
}

void AtomicFile::Commit() {
  if (file_ == nullptr) throw OutputError(path_ + ": " + what_ + " is already closed");
  errno = 0;
  const bool flushed = std::fflush(file_) == 0 && std::ferror(file_) == 0;
  const int e = errno;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!flushed || !closed) Throw("cannot write", e != 0 ? e : (errno != 0 ? errno : EIO));
  if (!in_place_ && std::rename(path_.c_str(), target_.c_str()) != 0) {
    const int re = errno;
    throw OutputError(target_ + ": cannot rename " + path_ + " onto " + what_ + ": " +
                      std::strerror(re));
  }
  done_ = true;
}

void AtomicFile::Discard() {
  if (file_ != nullptr) {
    std::fclose(file_);
    file_ = nullptr;
  }
  if (!in_place_ && !done_) ::unlink(path_.c_str());
  done_ = true;
}

void AtomicFile::CommitPrefix(std::uint64_t bytes) {
  if (file_ != nullptr) {
    std::fclose(file_);  // its unwritten buffer fails again or lands past `bytes`: cut below
    file_ = nullptr;
  }
  if (!in_place_ && !done_ && ::truncate(path_.c_str(), static_cast<off_t>(bytes)) == 0 &&
      std::rename(path_.c_str(), target_.c_str()) == 0) {
    done_ = true;
  }
}

void WriteFileAtomically(const std::string& target, const std::string& what,
                         const std::string& text, unsigned mode) {
  AtomicFile file(target, what, mode);
  file.Write(text);
  file.Commit();
}

void CheckDistinctFiles(const std::vector<std::pair<std::string, std::string>>& outputs,
                        const std::vector<std::pair<std::string, std::string>>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].second.empty() || IsSpecialFile(outputs[i].second)) continue;
    const std::string a = Canonical(outputs[i].second);
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      if (outputs[j].second.empty()) continue;
      if (a == Canonical(outputs[j].second)) {
        throw InputError(outputs[i].first + " and " + outputs[j].first + " name the same file (" +
                         outputs[i].second + "); each output needs its own path");
      }
    }
    for (const auto& [flag, path] : inputs) {
      if (!path.empty() && a == Canonical(path)) {
        throw InputError(outputs[i].first + " " + outputs[i].second + " is the input " + flag +
                         "; writing it would destroy the input");
      }
    }
  }
}

}  // namespace dpadmm::cli
