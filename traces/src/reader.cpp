#include "vp/trace/reader.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

namespace vp::trace {

std::string Diagnostic::format() const {
  const char* what = kind == Kind::Truncated ? "warning" : "error";
  return fmt::format("{}:{}:{}: {}: {}", source, line, column, what, message);
}

TraceReader::TraceReader(Named, std::string name, ReaderOptions options)
    : name_(std::move(name)), options_(std::move(options)) {
  if (options_.buffer_bytes < 4096) options_.buffer_bytes = 4096;
}

TraceReader::TraceReader(const std::string& path, ReaderOptions options) : TraceReader(Named{}, path, std::move(options)) {
  if (path == "-") {
    fd_ = 0;
  } else {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw TraceError(fmt::format("{}: cannot open trace: {}", path, std::strerror(errno)));
    owns_fd_ = true;
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  }
  buf_.resize(options_.buffer_bytes);
}

TraceReader TraceReader::from_string(std::string data, std::string name, ReaderOptions options) {
  TraceReader r(Named{}, std::move(name), std::move(options));
  r.buf_.assign(data.begin(), data.end());
  r.end_ = r.buf_.size();
  r.eof_ = true;
  return r;
}

TraceReader::TraceReader(TraceReader&& o) noexcept
    : name_(std::move(o.name_)),
      options_(std::move(o.options_)),
      fd_(o.fd_),
      owns_fd_(o.owns_fd_),
      eof_(o.eof_),
      buf_(std::move(o.buf_)),
      begin_(o.begin_),
      end_(o.end_),
      stats_(o.stats_),
      diagnostics_(std::move(o.diagnostics_)) {
  o.fd_ = -1;
  o.owns_fd_ = false;
}

TraceReader& TraceReader::operator=(TraceReader&& o) noexcept {
  if (this != &o) {
    if (owns_fd_) ::close(fd_);
    name_ = std::move(o.name_);
    options_ = std::move(o.options_);
    fd_ = o.fd_;
    owns_fd_ = o.owns_fd_;
    eof_ = o.eof_;
    buf_ = std::move(o.buf_);
    begin_ = o.begin_;
    end_ = o.end_;
    stats_ = o.stats_;
    diagnostics_ = std::move(o.diagnostics_);
    o.fd_ = -1;
    o.owns_fd_ = false;
  }
  return *this;
}

TraceReader::~TraceReader() {
  if (owns_fd_) ::close(fd_);
}

bool TraceReader::fill() {
  if (eof_) return false;
  // Keep the partial line, move it to the front, grow only if one line
  // fills the whole buffer.
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buf_.size()) buf_.resize(buf_.size() * 2);
  while (true) {
    const ssize_t n = ::read(fd_, buf_.data() + end_, buf_.size() - end_);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw TraceError(fmt::format("{}: read error: {}", name_, std::strerror(errno)));
    }
    if (n == 0) {
      eof_ = true;
      return false;
    }
    end_ += static_cast<std::size_t>(n);
    stats_.bytes += static_cast<std::uint64_t>(n);
    return true;
  }
}

void TraceReader::report(Diagnostic::Kind kind, std::uint64_t line, const LiteralError& err) {
  Diagnostic d{kind, name_, line, err.column, err.message};
  if (kind == Diagnostic::Kind::Truncated)
    d.message = fmt::format("last line is incomplete ({}); converted up to line {}", err.message, line - 1);
  if (options_.on_diagnostic) options_.on_diagnostic(d);
  if (options_.strict && kind == Diagnostic::Kind::Malformed) throw TraceError(d.format());
  if (diagnostics_.size() < options_.max_kept_diagnostics) diagnostics_.push_back(std::move(d));
}

bool TraceReader::next(TraceRecord& out) {
  while (true) {
    // memchr over an empty range must not see the null data() of an empty buffer.
    auto find_newline = [this]() -> const char* {
      if (end_ == begin_) return nullptr;
      return static_cast<const char*>(std::memchr(buf_.data() + begin_, '\n', end_ - begin_));
    };
    const char* nl = find_newline();
    while (nl == nullptr && end_ - begin_ <= options_.max_line_bytes && fill()) nl = find_newline();
    if (nl == nullptr && end_ - begin_ > options_.max_line_bytes)
      throw TraceError(fmt::format("{}:{}: a line longer than {} bytes: not a trace (a record is one short line)",
                                   name_, stats_.lines + 1, options_.max_line_bytes));
    if (nl == nullptr && begin_ == end_) return false;

    const bool complete = nl != nullptr;
    const std::size_t line_end = complete ? static_cast<std::size_t>(nl - buf_.data()) : end_;
    std::string_view line(buf_.data() + begin_, line_end - begin_);
    begin_ = complete ? line_end + 1 : end_;
    const std::uint64_t line_no = ++stats_.lines;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

    std::size_t first = 0;
    while (first < line.size() && (line[first] == ' ' || line[first] == '\t')) ++first;
    if (first == line.size() || line[first] == '#') {
      ++stats_.blank;
      continue;
    }

    LiteralError err;
    if (parser_.parse(line, out, err)) {
      out.line = line;
      out.line_no = line_no;
      ++stats_.records;
      return true;
    }
    // A last line without its newline that stops mid-value was cut off
    // (the writer died or the copy was interrupted), not written wrong.
    if (!complete && err.at_end) {
      stats_.truncated = true;
      report(Diagnostic::Kind::Truncated, line_no, err);
      return false;
    }
    ++stats_.malformed;
    report(Diagnostic::Kind::Malformed, line_no, err);
  }
}

}  // namespace vp::trace
