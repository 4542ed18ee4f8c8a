// The source files of one assembly run, and positions in them.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace vp::as::detail {

inline constexpr uint32_t kNoFile = UINT32_MAX;  // not in a file: the command line (-D)

struct Loc {
  uint32_t file = kNoFile;
  uint32_t line = 0;
  uint32_t col = 0;
  uint32_t line_off = 0;  // offset of the line's first character in the file text
};

// A line of source: where it is and where its text starts, so that any
// pointer into the text gives a column.
struct Line {
  Loc loc;
  const char* begin = nullptr;

  Loc at(const char* p) const {
    Loc l = loc;
    l.col = static_cast<uint32_t>(p - begin) + 1;
    return l;
  }
};

struct SourceFile {
  std::string path;  // as given
  std::string dir;   // folder for relative .include/.incbin ("" = cwd)
  std::string text;
};

// Every file read in one run: the top-level file and its includes. Texts
// stay where they are until the run ends, because names, operands and
// fix-ups are views into them.
class Sources {
 public:
  // Reads a whole regular file in one go; false with the reason otherwise.
  static bool read_whole(const std::string& path, std::string* out, std::string* err);
  // The real path (for include cycles), or `path` itself when it has none.
  static std::string canonical(const std::string& path);

  uint32_t add(const std::string& path, std::string text);
  SourceFile& operator[](uint32_t file) { return files_[file]; }
  const SourceFile& operator[](uint32_t file) const { return files_[file]; }

  // Resolves a quoted file name written in file `from`: absolute, else
  // beside that file, else in each include folder. "" when nothing exists.
  std::string resolve(const std::string& name, uint32_t from, const std::vector<std::string>& include_dirs) const;

  // The canonical paths of the files being assembled, outermost first.
  std::vector<std::string>& include_stack() { return include_stack_; }

 private:
  std::deque<SourceFile> files_;
  std::vector<std::string> include_stack_;
};

}  // namespace vp::as::detail
