#include "vp/trace/output_file.hpp"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <stdexcept>
#include <unistd.h>

namespace vp::trace {

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  tmp_ = fmt::format("{}.tmp-{}", path_, ::getpid());
  file_ = std::fopen(tmp_.c_str(), "wb");
  if (!file_) throw std::runtime_error(fmt::format("{}: cannot create output: {}", path_, std::strerror(errno)));
  buf_.reserve(kFlushBytes + (64 << 10));
}

OutputFile::~OutputFile() {
  if (file_) {
    std::fclose(file_);
    std::remove(tmp_.c_str());
  }
}

void OutputFile::flush() {
  if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size())
    throw std::runtime_error(fmt::format("{}: write failed: {}", path_, std::strerror(errno)));
  buf_.clear();
}

void OutputFile::commit() {
  if (!file_) throw std::runtime_error(fmt::format("{}: output already committed", path_));
  flush();
  std::FILE* f = file_;
  file_ = nullptr;
  if (std::fclose(f) != 0) {
    std::remove(tmp_.c_str());
    throw std::runtime_error(fmt::format("{}: write failed: {}", path_, std::strerror(errno)));
  }
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp_.c_str());
    throw std::runtime_error(fmt::format("{}: cannot move output into place: {}", path_, std::strerror(err)));
  }
}

}  // namespace vp::trace
