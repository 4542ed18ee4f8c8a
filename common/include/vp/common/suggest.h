// "Did you mean ...?": the nearest known name to a misspelt one. The
// assembler (mnemonics, directives), the parameter registry and the sweep's
// metric names all answer an unknown name with it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace vp::common {

// Whether two letters differing only in ASCII case count as the same.
enum class Case { kSensitive, kInsensitive };

// Levenshtein distance: the fewest single-character insertions, deletions
// and substitutions that turn `a` into `b`.
std::size_t edit_distance(std::string_view a, std::string_view b, Case letter_case = Case::kSensitive);

// Keeps the candidate nearest to `word` among those offered that are at
// most `max_distance` edits away; on a tie the one offered first wins.
// Each caller picks its own limit (how far a typo may stray depends on
// how long and how alike its names are).
class Nearest {
 public:
  Nearest(std::string_view word, std::size_t max_distance, Case letter_case = Case::kSensitive);
  void offer(std::string_view candidate);
  bool found() const { return found_; }
  // The nearest candidate so far; empty when none was close enough.
  const std::string& best() const { return best_; }

 private:
  std::string word_;
  std::size_t max_distance_;
  Case case_;
  std::size_t best_distance_ = 0;
  bool found_ = false;
  std::string best_;
};

}  // namespace vp::common
