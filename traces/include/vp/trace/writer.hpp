// Buffered writer for the platform's own traces, in the ZeBu line grammar:
//
//   [mvm, {'slyr': 3, 'layer': 'conv1', 'cluster': 0, 'cu': 2, 'unit': 'xbar', 'pc': 128},
//    {'inst_idx': 17, 'time': [100, 164]}, {'rd': 4, 'xb': 5, 'dt': 'i8'}]
//
// (one line per record). Lines are formatted into a large buffer and the
// buffer is only ever handed to the OS cut at a line boundary, so the file
// on disk always ends with a complete line: a run that fails keeps a
// well-formed trace of everything flushed before the failure. Not
// thread-safe: one writer per simulation thread.
//
// With WriterOptions::background, a full buffer goes to the file from a
// second thread while the caller formats the next one (the write into the
// page cache costs about as much as the formatting); the bytes and their
// order are the same. flush() and close() still return only once
// everything is in the file, and a failed write is reported by the next
// write(), flush() or close().
#pragma once

#include <cstdint>
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vp::trace {

// The executing unit, as named in the 'unit' field: the ISA's units
// (vp/isa/units.def) in their order, then the control processor; writer.cpp
// checks the correspondence at compile time.
enum class Unit : std::uint8_t { Scalar, Xbar, Vector, Dma, Noc, Sync, Ctrl, Cp };
std::string_view unit_name(Unit unit);
bool parse_unit(std::string_view name, Unit& out);

// One operand: an integer or a string, by field name.
struct Param {
  std::string_view name;
  bool is_string = false;
  std::int64_t value = 0;
  std::string_view text;

  static Param integer(std::string_view name, std::int64_t v) { return {name, false, v, {}}; }
  static Param string(std::string_view name, std::string_view s) { return {name, true, 0, s}; }
};

// A non-owning view of the operand list (C++17 has no std::span).
class ParamList {
 public:
  ParamList() = default;
  ParamList(const Param* data, std::size_t size) : data_(data), size_(size) {}
  // No initializer_list constructor on purpose: a braced list assigned to a
  // WriteRecord field would dangle at the end of the statement.
  template <std::size_t N>
  ParamList(const Param (&array)[N]) : data_(array), size_(N) {}  // NOLINT: implicit by design
  template <std::size_t N>
  ParamList(const std::array<Param, N>& array) : data_(array.data()), size_(N) {}  // NOLINT
  ParamList(const std::vector<Param>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT: implicit by design
  const Param* begin() const { return data_; }
  const Param* end() const { return data_ + size_; }
  std::size_t size() const { return size_; }

 private:
  const Param* data_ = nullptr;
  std::size_t size_ = 0;
};

struct WriteRecord {
  std::string_view mnemonic;     // bare word: letters, digits, '_' and '.'
  std::int32_t chip = -1;        // 'chip' of a system of chips; -1 = one chip (no key)
  std::int32_t cluster = -1;     // -1 = control processor
  std::int32_t cu = -1;          // -1 = control processor
  Unit unit = Unit::Cp;
  std::int32_t layer_id = -1;    // 'slyr'; -1 = outside any layer
  std::string_view layer_name;   // 'layer'
  std::int64_t pc = 0;
  std::int64_t inst_idx = 0;     // 1.. in issue order
  std::int64_t start = 0;        // cycles
  std::int64_t end = 0;          // cycles, >= start
  ParamList params;
};

struct WriterOptions {
  std::size_t buffer_bytes = 1 << 20;  // flush threshold
  bool append = false;                 // append instead of truncating
  bool background = false;             // full buffers written from a second thread
};

class TraceWriter {
 public:
  // Opens (creates/truncates) `path`. Throws std::runtime_error on failure.
  explicit TraceWriter(const std::string& path, WriterOptions options = {});
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;
  // Flushes and closes; errors at this point are swallowed (use close()).
  ~TraceWriter();

  // Appends one line. Throws std::invalid_argument for a record that would
  // not read back (bad mnemonic or field name, end < start) and
  // std::runtime_error when the disk write fails.
  void write(const WriteRecord& record);
  // Hands every complete line buffered so far to the OS.
  void flush();
  // Flushes and closes; throws std::runtime_error if the data did not reach
  // the file. Idempotent.
  void close();

  std::uint64_t records() const { return records_; }
  const std::string& path() const { return path_; }

 private:
  void write_out(const char* data, std::size_t size);
  // Background mode: gives the buffer to the writing thread (after the
  // previous one is out) and takes an empty one back.
  void hand_off();
  void wait_written();

  struct Background;
  std::unique_ptr<Background> bg_;
  std::string path_;
  WriterOptions options_;
  int fd_ = -1;
  std::string buf_;
  std::uint64_t records_ = 0;
  std::uint64_t committed_ = 0;  // bytes known to be in the file
};

}  // namespace vp::trace
