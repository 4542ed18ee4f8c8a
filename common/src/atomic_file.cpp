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

void AtomicFile::commit(bool durable) {
  if (!file_) throw OutputError(path_ + ": output already committed or discarded");
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
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    err = errno;
    discard();
    throw OutputError(path_ + ": cannot move the finished output into place: " + why(err));
  }
  tmp_.clear();
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
