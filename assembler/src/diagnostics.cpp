#include "diagnostics.h"

#include <cstring>

namespace vp::as {

namespace detail {

void Diagnostics::error(const Loc& loc, std::string msg) {
  Diagnostic d;
  if (loc.file == kNoFile) {
    d.file = "<command line>";
  } else {
    const SourceFile& f = sources_[loc.file];
    d.file = f.path;
    d.line = loc.line;
    d.col = loc.col;
    if (loc.line_off <= f.text.size()) {
      const char* b = f.text.data() + loc.line_off;
      const char* e = static_cast<const char*>(std::memchr(b, '\n', f.text.size() - loc.line_off));
      d.source_line.assign(b, e ? e : f.text.data() + f.text.size());
      if (!d.source_line.empty() && d.source_line.back() == '\r') d.source_line.pop_back();
    }
  }
  d.message = std::move(msg);
  result_.errors.push_back(std::move(d));
  if (result_.errors.size() >= max_errors_) {
    result_.truncated = true;
    throw Stop{};
  }
}

}  // namespace detail

std::string Diagnostic::headline() const {
  std::string s = file;
  if (line) s += ":" + std::to_string(line) + ":" + std::to_string(col);
  return s + ": error: " + message;
}

std::string Diagnostic::format() const {
  std::string s = headline() + "\n";
  if (!source_line.empty()) {
    s += "  " + source_line + "\n  ";
    for (uint32_t i = 1; i < col && i <= source_line.size(); ++i) s += source_line[i - 1] == '\t' ? '\t' : ' ';
    s += "^\n";
  }
  return s;
}

std::string Result::error_text() const {
  std::string s;
  for (const auto& d : errors) s += d.format();
  if (truncated) s += "too many errors; stopping\n";
  return s;
}

}  // namespace vp::as
