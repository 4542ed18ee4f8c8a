#include "vp/common/atomic_file.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace vp::common {
namespace {

std::string why(int err) { return std::strerror(err); }

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw OutputError("output path is empty");
  struct stat st{};
  if (::stat(path_.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw OutputError(path_ + ": is a directory, expected a file name for the output");
  // mkstemp in the destination's directory: a unique name, created with
  // O_EXCL, on the same file system as the destination.
  std::string tmpl = path_ + ".tmp-XXXXXX";
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw OutputError(path_ + ": cannot create output: " + why(errno));
  tmp_ = tmpl;
  // mkstemp creates 0600; outputs get the usual permissions under the umask.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp_.c_str());
    throw OutputError(path_ + ": cannot create output: " + why(err));
  }
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() {
  if (file_) {
    std::fclose(file_);
    file_ = nullptr;
  }
  if (!tmp_.empty()) {
    ::unlink(tmp_.c_str());
    tmp_.clear();
  }
}

void AtomicFile::write(const void* data, std::size_t bytes) {
  if (!file_) throw OutputError(path_ + ": output already committed or discarded");
  if (bytes && std::fwrite(data, 1, bytes, file_) != bytes) {
    const int err = errno;
    discard();
    throw OutputError(path_ + ": write failed: " + why(err));
  }
}

void AtomicFile::finish(bool durable) {
  if (!file_) {
    if (tmp_.empty()) throw OutputError(path_ + ": output already committed or discarded");
    return;  // finished before
  }
  std::FILE* f = file_;
  file_ = nullptr;
  int err = 0;
  if (std::fflush(f) != 0 || std::ferror(f)) err = errno ? errno : EIO;
  if (!err && durable && ::fsync(::fileno(f)) != 0) err = errno;
  if (std::fclose(f) != 0 && !err) err = errno ? errno : EIO;
  if (err) {
    discard();
    throw OutputError(path_ + ": write failed: " + why(err));
  }
}

void AtomicFile::commit(bool durable) {
  finish(durable);
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    discard();
    throw OutputError(path_ + ": cannot move the finished output into place: " + why(err));
  }
  tmp_.clear();
}

void AtomicFile::adopt(const std::string& finished) {
  if (tmp_.empty()) throw OutputError(path_ + ": output already committed or discarded");
  if (file_) {
    std::fclose(file_);
    file_ = nullptr;
  }
  if (::rename(finished.c_str(), tmp_.c_str()) != 0) {
    const int err = errno;
    ::unlink(finished.c_str());
    discard();
    throw OutputError(path_ + ": cannot take the finished output " + finished + ": " + why(err));
  }
}

void commit_together(const std::vector<AtomicFile*>& files, bool durable) {
  try {
    for (AtomicFile* f : files) f->finish(durable);
  } catch (...) {
    for (AtomicFile* f : files) f->discard();
    throw;
  }
  // What each rename replaced: "" when the destination did not exist (or
  // could not be kept), else a hard link to the old file.
  std::vector<std::string> kept;
  kept.reserve(files.size());
  for (size_t k = 0; k < files.size(); ++k) {
    AtomicFile& f = *files[k];
    std::string old;
    struct stat st{};
    if (::lstat(f.path_.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      old = f.tmp_ + ".old";  // unique: the temporary's name is
      if (::link(f.path_.c_str(), old.c_str()) != 0) old.clear();
    }
    if (::rename(f.tmp_.c_str(), f.path_.c_str()) != 0) {
      const int err = errno;
      if (!old.empty()) ::unlink(old.c_str());
      // Back to what was there before this run, latest first.
      for (size_t j = k; j-- > 0;) {
        AtomicFile& done = *files[j];
        if (!kept[j].empty()) ::rename(kept[j].c_str(), done.path_.c_str());
        else ::unlink(done.path_.c_str());
      }
      for (size_t j = k; j < files.size(); ++j) files[j]->discard();
      for (size_t j = 0; j < k; ++j) files[j]->tmp_.clear();  // renamed away; nothing to remove
      throw OutputError(f.path_ + ": cannot move the finished output into place: " + why(err) +
                        (k ? " (the " + std::to_string(k) + " output" + (k == 1 ? "" : "s") +
                                 " already moved are put back as they were)"
                           : ""));
    }
    kept.push_back(std::move(old));
  }
  for (size_t k = 0; k < files.size(); ++k) {
    if (!kept[k].empty()) ::unlink(kept[k].c_str());
    files[k]->tmp_.clear();
  }
}

void write_file_atomically(const std::string& path, const void* data, std::size_t bytes) {
  AtomicFile f(path);
  f.write(data, bytes);
  f.commit();
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa{}, sb{};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace vp::common
