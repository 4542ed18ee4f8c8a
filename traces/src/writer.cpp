#include "vp/trace/writer.hpp"

#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <fmt/format.h>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unistd.h>

#include "vp/isa/isa.h"

namespace vp::trace {
namespace {

// The units are the ISA's (units.def), in its order, then the control
// processor, which the trace shows as one unit of its own.
constexpr std::string_view kUnitNames[] = {
#define VP_UNIT(NAME, TRACE_NAME, WAIT_BIT) TRACE_NAME,
#include "vp/isa/units.def"
    "cp"};
static_assert(static_cast<int>(Unit::Cp) == isa::kUnitCount && std::size(kUnitNames) == isa::kUnitCount + 1,
              "trace::Unit lists the units of vp/isa/units.def, then Cp");
static_assert(static_cast<int>(Unit::Scalar) == static_cast<int>(isa::Unit::Scalar) &&
                  static_cast<int>(Unit::Xbar) == static_cast<int>(isa::Unit::Crossbar) &&
                  static_cast<int>(Unit::Vector) == static_cast<int>(isa::Unit::Vector) &&
                  static_cast<int>(Unit::Dma) == static_cast<int>(isa::Unit::Dma) &&
                  static_cast<int>(Unit::Noc) == static_cast<int>(isa::Unit::Noc) &&
                  static_cast<int>(Unit::Sync) == static_cast<int>(isa::Unit::Sync) &&
                  static_cast<int>(Unit::Ctrl) == static_cast<int>(isa::Unit::Control),
              "each trace::Unit has the number of the isa::Unit it shows");

bool is_bare_word(std::string_view s) {
  if (s.empty()) return false;
  const auto word = [](char c, bool first) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!first && ((c >= '0' && c <= '9') || c == '.'));
  };
  if (!word(s[0], true)) return false;
  for (const char c : s.substr(1))
    if (!word(c, false)) return false;
  return true;
}

// The line is formatted with a pointer into room reserved for its longest
// possible text (line_bound), not by appending piece by piece: the trace
// has one line per instruction and this is on the simulation's path.
char* put(char* p, std::string_view s) {
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}

// Integer to text without locale or allocation; at most 20 characters.
char* put_int(char* p, std::int64_t v) { return std::to_chars(p, p + 24, v).ptr; }

// Python single-quoted string literal, so the line reads back with
// ast.literal_eval as well as with our reader. At most 4 * size + 2.
char* put_string(char* p, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  *p++ = '\'';
  for (const char c : s) {
    switch (c) {
      case '\'': p = put(p, "\\'"); break;
      case '\\': p = put(p, "\\\\"); break;
      case '\n': p = put(p, "\\n"); break;
      case '\r': p = put(p, "\\r"); break;
      case '\t': p = put(p, "\\t"); break;
      default: {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20) {
          *p++ = '\\';
          *p++ = 'x';
          *p++ = kHex[u >> 4];
          *p++ = kHex[u & 15];
        } else {
          *p++ = c;
        }
      }
    }
  }
  *p++ = '\'';
  return p;
}

// Longest text write() can produce for `r`.
std::size_t line_bound(const WriteRecord& r) {
  std::size_t n = 160 + r.mnemonic.size() + 4 * r.layer_name.size() + 6 * 24;
  for (const Param& p : r.params) n += 8 + p.name.size() + (p.is_string ? 4 * p.text.size() + 2 : 24);
  return n;
}

}  // namespace

std::string_view unit_name(Unit unit) {
  const auto k = static_cast<std::size_t>(unit);
  return k < std::size(kUnitNames) ? kUnitNames[k] : std::string_view("?");
}

bool parse_unit(std::string_view name, Unit& out) {
  for (std::size_t k = 0; k < std::size(kUnitNames); ++k) {
    if (kUnitNames[k] == name) {
      out = static_cast<Unit>(k);
      return true;
    }
  }
  return false;
}

// The writing thread and the one buffer it may hold. The caller waits for
// it to be free before handing over the next, so at most one buffer is in
// flight and the file receives the buffers in order.
struct TraceWriter::Background {
  std::thread thread;
  std::mutex mutex;
  std::condition_variable cv;
  std::string pending;  // being written while `busy`
  bool busy = false;
  bool stop = false;
  std::exception_ptr error;  // a failed write, for the caller to see
};

TraceWriter::TraceWriter(const std::string& path, WriterOptions options) : path_(path), options_(options) {
  const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (options_.append ? O_APPEND : O_TRUNC);
  fd_ = ::open(path.c_str(), flags, 0644);
  if (fd_ < 0) throw std::runtime_error(fmt::format("{}: cannot open trace for writing: {}", path, std::strerror(errno)));
  if (options_.append) {
    const off_t size = ::lseek(fd_, 0, SEEK_END);
    committed_ = size > 0 ? static_cast<std::uint64_t>(size) : 0;
  }
  buf_.reserve(options_.buffer_bytes + 4096);
}

TraceWriter::~TraceWriter() {
  try {
    close();
  } catch (...) {
    // A destructor must not throw; the file still ends at a line boundary.
  }
}

void TraceWriter::write(const WriteRecord& r) {
  if (fd_ < 0) throw std::runtime_error(fmt::format("{}: trace writer is closed", path_));
  if (!is_bare_word(r.mnemonic))
    throw std::invalid_argument(fmt::format("trace record {}: mnemonic '{}' is not a bare word", r.inst_idx, r.mnemonic));
  if (r.end < r.start || r.start < 0)
    throw std::invalid_argument(fmt::format("trace record {} ({}): time [{}, {}] is not an interval", r.inst_idx,
                                            r.mnemonic, r.start, r.end));
  if (static_cast<std::size_t>(r.unit) >= std::size(kUnitNames))
    throw std::invalid_argument(fmt::format("trace record {} ({}): unit {} is not a Unit", r.inst_idx, r.mnemonic,
                                            static_cast<int>(r.unit)));
  for (const Param& p : r.params)
    if (!is_bare_word(p.name))
      throw std::invalid_argument(fmt::format("trace record {} ({}): operand name '{}' is not a bare word", r.inst_idx,
                                              r.mnemonic, p.name));

  // Format into the buffer; the line is complete before anything can leave.
  // Growing the buffer is the only step that can throw, and it comes first.
  const std::size_t mark = buf_.size();
  buf_.resize(mark + line_bound(r));
  char* const line = &buf_[mark];
  char* p = line;
  *p++ = '[';
  p = put(p, r.mnemonic);
  if (r.chip >= 0) {
    p = put(p, ", {'chip': ");
    p = put_int(p, r.chip);
    p = put(p, ", 'slyr': ");
  } else {
    p = put(p, ", {'slyr': ");
  }
  p = put_int(p, r.layer_id);
  p = put(p, ", 'layer': ");
  p = put_string(p, r.layer_name);
  p = put(p, ", 'cluster': ");
  p = put_int(p, r.cluster);
  p = put(p, ", 'cu': ");
  p = put_int(p, r.cu);
  p = put(p, ", 'unit': '");
  p = put(p, unit_name(r.unit));
  p = put(p, "', 'pc': ");
  p = put_int(p, r.pc);
  p = put(p, "}, {'inst_idx': ");
  p = put_int(p, r.inst_idx);
  p = put(p, ", 'time': [");
  p = put_int(p, r.start);
  p = put(p, ", ");
  p = put_int(p, r.end);
  p = put(p, "]}, {");
  bool first = true;
  for (const Param& prm : r.params) {
    if (!first) p = put(p, ", ");
    first = false;
    *p++ = '\'';
    p = put(p, prm.name);
    p = put(p, "': ");
    p = prm.is_string ? put_string(p, prm.text) : put_int(p, prm.value);
  }
  p = put(p, "}]\n");
  buf_.resize(mark + static_cast<std::size_t>(p - line));
  ++records_;
  if (buf_.size() >= options_.buffer_bytes) {
    if (options_.background) {
      hand_off();
    } else {
      flush();
    }
  }
}

void TraceWriter::hand_off() {
  if (!bg_) {
    bg_ = std::make_unique<Background>();
    bg_->pending.reserve(buf_.capacity());
    bg_->thread = std::thread([this] {
      Background& b = *bg_;
      std::unique_lock<std::mutex> lock(b.mutex);
      for (;;) {
        b.cv.wait(lock, [&b] { return b.busy || b.stop; });
        if (!b.busy) return;
        lock.unlock();
        std::exception_ptr error;
        try {
          write_out(b.pending.data(), b.pending.size());
        } catch (...) {
          error = std::current_exception();
        }
        lock.lock();
        b.pending.clear();
        b.busy = false;
        if (error) b.error = error;
        b.cv.notify_all();
      }
    });
  }
  wait_written();
  {
    const std::lock_guard<std::mutex> lock(bg_->mutex);
    buf_.swap(bg_->pending);
    bg_->busy = true;
  }
  bg_->cv.notify_all();
}

void TraceWriter::wait_written() {
  if (!bg_) return;
  std::unique_lock<std::mutex> lock(bg_->mutex);
  bg_->cv.wait(lock, [this] { return !bg_->busy; });
  if (bg_->error) {
    // What did not fit is lost, as in the synchronous flush; report once.
    std::exception_ptr error = bg_->error;
    bg_->error = nullptr;
    std::rethrow_exception(error);
  }
}

void TraceWriter::write_out(const char* data, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd_, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : ENOSPC;
      // Cut the file back to the last complete line that made it out, so a
      // full disk leaves a readable trace rather than a half line.
      const char* last_nl = done > 0 ? static_cast<const char*>(memrchr(data, '\n', done)) : nullptr;
      const std::uint64_t keep = committed_ + (last_nl ? static_cast<std::uint64_t>(last_nl - data + 1) : 0);
      if (::ftruncate(fd_, static_cast<off_t>(keep)) == 0) committed_ = keep;
      throw std::runtime_error(fmt::format("{}: write failed: {}", path_, std::strerror(err)));
    }
    done += static_cast<std::size_t>(n);
  }
  committed_ += size;
}

void TraceWriter::flush() {
  if (fd_ < 0) return;
  wait_written();  // earlier buffers first
  if (buf_.empty()) return;
  // The buffer only ever holds whole lines (write() appends a full line).
  try {
    write_out(buf_.data(), buf_.size());
  } catch (...) {
    buf_.clear();  // what did not fit is lost; never retry and duplicate lines
    throw;
  }
  buf_.clear();
}

void TraceWriter::close() {
  if (fd_ < 0) return;
  std::exception_ptr error;
  try {
    flush();
  } catch (...) {
    error = std::current_exception();
  }
  if (bg_) {
    {
      const std::lock_guard<std::mutex> lock(bg_->mutex);
      bg_->stop = true;
    }
    bg_->cv.notify_all();
    bg_->thread.join();
    bg_.reset();
  }
  if (error) {
    ::close(fd_);
    fd_ = -1;
    std::rethrow_exception(error);
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) throw std::runtime_error(fmt::format("{}: close failed: {}", path_, std::strerror(errno)));
}

}  // namespace vp::trace
