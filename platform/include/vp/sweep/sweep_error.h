// The one exception type of vp::sweep. Every message starts with the place
// to fix ("sweep.yaml:12: ...") so an architect edits the right line.
#pragma once

#include <stdexcept>
#include <string>

namespace vp::sweep {

class SweepError : public std::runtime_error {
 public:
  // where: "file:line" or a path; empty when there is no place to name.
  SweepError(const std::string& where, const std::string& detail)
      : std::runtime_error(where.empty() ? detail : where + ": " + detail), where_(where) {}
  const std::string& where() const { return where_; }

 private:
  std::string where_;
};

}  // namespace vp::sweep
