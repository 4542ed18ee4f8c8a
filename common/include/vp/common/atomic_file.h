// An output file that appears whole or not at all. Bytes go to a temporary
// file beside the destination (same directory, so the final rename is
// atomic); commit() flushes, closes and renames it into place. Destroyed
// without commit() -- an error, an exception, a signal handler that unwinds
// -- the temporary is removed and an existing file at the destination is left
// as it was. Every tool writes its outputs through this, so a failing or
// interrupted run never leaves a half-written file in place of a good one.
#pragma once

#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace vp::common {

class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class AtomicFile {
 public:
  // Creates the temporary; throws OutputError naming `path` when the
  // directory does not exist or is not writable, or `path` is a directory.
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, std::size_t bytes);
  void write(std::string_view text) { write(text.data(), text.size()); }
  // The stdio stream of the temporary, for writers that format into one.
  std::FILE* stream() { return file_; }

  // Flushes, syncs when `durable` and closes the temporary, which is then
  // complete but not yet in place. Throws OutputError (and removes the
  // temporary) when any step fails, e.g. a full disk.
  void finish(bool durable = false);
  // finish() unless done, then renames into place. Throws OutputError (and
  // removes the temporary) when any step fails. After commit() the object
  // holds nothing.
  void commit(bool durable = false);
  // Removes the temporary without touching the destination.
  void discard();
  // Takes `finished`, a complete file another writer produced beside the
  // destination (e.g. at temp_path() + ".part"), as this output's bytes:
  // it replaces the temporary, and the output is then finished, ready for
  // commit() or commit_together(). Throws OutputError (and removes both)
  // when that fails.
  void adopt(const std::string& finished);

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return tmp_; }

 private:
  friend void commit_together(const std::vector<AtomicFile*>& files, bool durable);

  std::string path_;
  std::string tmp_;
  std::FILE* file_ = nullptr;
};

// Several outputs of one run published all or nothing, as far as POSIX
// allows: every temporary is finished first; then each is renamed into place,
// an existing destination kept as a hard link beside it until all renames
// succeeded. When rename k fails, the destinations 0..k-1 are put back as
// they were (the old file renamed back, or the new one removed when there was
// none) and every temporary is removed; the OutputError names output k.
// Not atomic as a group: another process reading the destinations during the
// renames may see some new and some old, and a crash (SIGKILL, power) between
// two renames leaves that mix plus the `.old` links. Where the file system has
// no hard links, a replaced file cannot be put back and is removed instead.
void commit_together(const std::vector<AtomicFile*>& files, bool durable = false);

// Writes `bytes` to `path` through an AtomicFile.
void write_file_atomically(const std::string& path, const void* data, std::size_t bytes);
inline void write_file_atomically(const std::string& path, std::string_view text) {
  write_file_atomically(path, text.data(), text.size());
}

// Whether two paths name the same existing file (same device and inode):
// a tool refuses to write its output over one of its inputs.
bool same_file(const std::string& a, const std::string& b);

}  // namespace vp::common
