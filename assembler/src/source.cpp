#include "source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace vp::as::detail {
namespace {

std::string dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

bool exists(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0;
}

}  // namespace

bool Sources::read_whole(const std::string& path, std::string* out, std::string* err) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *err = std::strerror(errno);
    return false;
  }
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    *err = "not a regular file";
    return false;
  }
  out->resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < out->size()) {
    const ssize_t k = ::read(fd, out->data() + got, out->size() - got);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    got += static_cast<size_t>(k);
  }
  ::close(fd);
  out->resize(got);
  return true;
}

std::string Sources::canonical(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf)) return buf;
  return path;
}

uint32_t Sources::add(const std::string& path, std::string text) {
  files_.push_back(SourceFile{path, dir_of(path), std::move(text)});
  return static_cast<uint32_t>(files_.size() - 1);
}

std::string Sources::resolve(const std::string& name, uint32_t from,
                             const std::vector<std::string>& include_dirs) const {
  if (!name.empty() && name[0] == '/') return exists(name) ? name : std::string();
  const std::string here = files_[from].dir + name;
  if (exists(here)) return here;
  for (const auto& d : include_dirs) {
    std::string p = d.empty() || d.back() == '/' ? d + name : d + "/" + name;
    if (exists(p)) return p;
  }
  return {};
}

}  // namespace vp::as::detail
