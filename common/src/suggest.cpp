#include "vp/common/suggest.h"

#include <algorithm>
#include <vector>

namespace vp::common {
namespace {

char fold(char c, Case letter_case) {
  if (letter_case == Case::kInsensitive && c >= 'A' && c <= 'Z') return static_cast<char>(c - 'A' + 'a');
  return c;
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b, Case letter_case) {
  // One row of the table at a time: row[j] is the distance from the first
  // i characters of a to the first j of b.
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    const char ca = fold(a[i - 1], letter_case);
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({up + 1, row[j - 1] + 1, diag + (ca == fold(b[j - 1], letter_case) ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

Nearest::Nearest(std::string_view word, std::size_t max_distance, Case letter_case)
    : word_(word), max_distance_(max_distance), case_(letter_case) {}

void Nearest::offer(std::string_view candidate) {
  const std::size_t d = edit_distance(word_, candidate, case_);
  if (d > max_distance_ || (found_ && d >= best_distance_)) return;
  found_ = true;
  best_distance_ = d;
  best_.assign(candidate);
}

}  // namespace vp::common
