// An output that appears under its final name only when complete: data goes
// to a temporary beside <path> (vp::common::AtomicFile) and is renamed over
// <path> by commit(). Dropping the object without commit() removes the
// temporary, so a failed conversion never leaves a half-written VCD or JSON
// behind, and an existing file of that name is left as it was.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vp::common {
class AtomicFile;
}

namespace vp::trace {

class OutputFile {
 public:
  explicit OutputFile(std::string path);  // throws std::runtime_error
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  // Buffer to format into (fmt::format_to(std::back_inserter(buf()), ...)).
  std::string& buf() { return buf_; }
  void write(std::string_view s) { buf_.append(s); maybe_flush(); }
  // Call after appending to buf() directly.
  void maybe_flush() {
    if (buf_.size() >= kFlushBytes) flush();
  }
  // Writes the buffer and flushes the stream; throws when any byte did not
  // get to the temporary. What commit() then does rarely fails.
  void prepare();
  void commit();  // prepare, close, rename into place; throws on failure
  const std::string& path() const { return path_; }

 private:
  friend void commit_together(const std::vector<OutputFile*>& outputs);
  static constexpr std::size_t kFlushBytes = 1 << 20;
  void flush();

  std::string path_;
  std::unique_ptr<vp::common::AtomicFile> file_;
  std::string buf_;
};

// The outputs of one conversion, published all or nothing: each prepared,
// then renamed into place together (vp::common::commit_together); when one
// cannot be, those already moved are put back and the error names it.
void commit_together(const std::vector<OutputFile*>& outputs);

}  // namespace vp::trace
