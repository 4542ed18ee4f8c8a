#include "vp/trace/output_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "vp/common/atomic_file.h"

namespace vp::trace {

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  try {
    file_ = std::make_unique<vp::common::AtomicFile>(path_);
  } catch (const vp::common::OutputError& e) {
    throw std::runtime_error(e.what());
  }
  buf_.reserve(kFlushBytes + (64 << 10));
}

OutputFile::~OutputFile() = default;  // an uncommitted temporary is removed

void OutputFile::flush() {
  if (!file_) throw std::runtime_error(path_ + ": output already committed");
  try {
    file_->write(buf_);
  } catch (const vp::common::OutputError& e) {
    throw std::runtime_error(e.what());
  }
  buf_.clear();
}

void OutputFile::prepare() {
  flush();
  std::FILE* f = file_->stream();
  if (std::fflush(f) != 0 || std::ferror(f)) {
    const int err = errno ? errno : EIO;
    file_.reset();
    throw std::runtime_error(path_ + ": write failed: " + std::strerror(err));
  }
}

void OutputFile::commit() {
  prepare();
  try {
    file_->commit();
  } catch (const vp::common::OutputError& e) {
    file_.reset();
    throw std::runtime_error(e.what());
  }
  file_.reset();
}

void commit_together(const std::vector<OutputFile*>& outputs) {
  std::vector<vp::common::AtomicFile*> files;
  for (OutputFile* o : outputs) {
    o->prepare();
    files.push_back(o->file_.get());
  }
  try {
    vp::common::commit_together(files);
  } catch (const vp::common::OutputError& e) {
    for (OutputFile* o : outputs) o->file_.reset();
    throw std::runtime_error(e.what());
  }
  for (OutputFile* o : outputs) o->file_.reset();
}

}  // namespace vp::trace
