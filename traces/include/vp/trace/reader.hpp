// Streaming trace reader: one record at a time from a file, stdin or a
// string, through a fixed-size buffer, so memory stays bounded whatever the
// trace length (it grows only to hold the longest single line).
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "vp/trace/record.hpp"

namespace vp::trace {

// Raised for I/O failures and, under `strict`, for the first malformed line.
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Diagnostic {
  enum class Kind { Malformed, Truncated };
  Kind kind = Kind::Malformed;
  std::string source;
  std::uint64_t line = 0;
  std::uint32_t column = 0;
  std::string message;
  std::string format() const;  // "file:line:col: error: message"
};

struct ReaderOptions {
  bool strict = false;                 // throw TraceError on the first malformed line
  std::size_t buffer_bytes = 1 << 20;  // read granularity
  std::size_t max_kept_diagnostics = 100;  // all are counted; only these are stored
  // A longer line is no trace record (a record is a few hundred bytes):
  // TraceError, so /dev/zero or a binary file without newlines ends in an
  // error after this many bytes instead of exhausting memory.
  std::size_t max_line_bytes = 16 << 20;
  std::function<void(const Diagnostic&)> on_diagnostic;  // called for every one
};

struct ReaderStats {
  std::uint64_t lines = 0;      // physical lines seen (including skipped ones)
  std::uint64_t records = 0;    // records returned
  std::uint64_t malformed = 0;  // lines skipped as malformed
  std::uint64_t blank = 0;      // empty lines and '#' comments
  std::uint64_t bytes = 0;
  bool truncated = false;       // last line cut off: records stop before it
};

class TraceReader {
 public:
  // Opens `path` ("-" = stdin). Throws TraceError if it cannot be opened.
  explicit TraceReader(const std::string& path, ReaderOptions options = {});
  // Reads from an in-memory string; `name` is used in diagnostics.
  static TraceReader from_string(std::string data, std::string name, ReaderOptions options = {});

  TraceReader(TraceReader&&) noexcept;
  TraceReader& operator=(TraceReader&&) noexcept;
  ~TraceReader();

  // Next record; false at the end of the input. Views in `out` are valid
  // until the following call.
  bool next(TraceRecord& out);

  const ReaderStats& stats() const { return stats_; }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  const std::string& source() const { return name_; }

 private:
  struct Named {};
  TraceReader(Named, std::string name, ReaderOptions options);
  bool fill();  // reads more input; false at end of file
  void report(Diagnostic::Kind kind, std::uint64_t line, const LiteralError& err);

  std::string name_;
  ReaderOptions options_;
  int fd_ = -1;
  bool owns_fd_ = false;
  bool eof_ = false;
  std::vector<char> buf_;
  std::size_t begin_ = 0;  // first unconsumed byte
  std::size_t end_ = 0;    // one past the last valid byte
  RecordParser parser_;
  ReaderStats stats_;
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace vp::trace
