// The listing (vp-as --listing): per instruction, its core, index, word
// and the source line it came from, core by core.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "program.h"
#include "source.h"

namespace vp::as::detail {

class Listing {
 public:
  // Remembers that instruction `index` of core `core` comes from `loc`.
  void record(int core, uint32_t index, const Loc& loc) { entries_.push_back(Entry{core, index, loc}); }
  // Appends the lines of every core of the program, in core order; the
  // words are final (after the fix-ups).
  void render(const Program& program, const Sources& sources, std::string& out) const;

 private:
  struct Entry {
    int core;
    uint32_t index;
    Loc loc;
  };
  std::vector<Entry> entries_;
};

}  // namespace vp::as::detail
