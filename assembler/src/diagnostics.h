// Error reporting for one assembly run: every error becomes a Diagnostic
// with its file, line, column and the offending line, until
// Options::max_errors of them have been collected.
#pragma once

#include <cstddef>
#include <string>

#include "source.h"
#include "vp/as/assembler.h"

namespace vp::as::detail {

struct Stop {};  // thrown when the error limit is reached; ends the run

class Diagnostics {
 public:
  Diagnostics(const Sources& sources, Result& result, size_t max_errors)
      : sources_(sources), result_(result), max_errors_(max_errors) {}

  // Records `msg` at `loc`; throws Stop when that makes max_errors.
  void error(const Loc& loc, std::string msg);
  void error(const Line& line, const char* at, std::string msg) { error(line.at(at), std::move(msg)); }
  bool any() const { return !result_.errors.empty(); }

 private:
  const Sources& sources_;
  Result& result_;
  size_t max_errors_;
};

}  // namespace vp::as::detail
