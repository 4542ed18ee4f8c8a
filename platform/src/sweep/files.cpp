#include "vp/sweep/files.h"

#include "vp/common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace vp::sweep {

namespace fs = std::filesystem;

// The marker that says a point is done must never survive a crash as an
// empty file, so the data reaches the disk (durable commit) before the
// rename publishes it.
void write_file_atomically(const std::string& path, const std::string& text) {
  common::AtomicFile f(path);
  f.write(text);
  f.commit(/*durable=*/true);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot read");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

void make_dirs(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) throw std::runtime_error(path + ": cannot create folder: " + ec.message());
}

void remove_tree(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
  if (ec) throw std::runtime_error(path + ": cannot remove: " + ec.message());
}

std::string absolute(const std::string& path) {
  return fs::absolute(path).lexically_normal().string();
}

std::string self_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

}  // namespace vp::sweep
