// edit_distance and Nearest: the "did you mean" behind vp-as, the parameter
// registry and vp-sweep's metric names.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "vp/common/suggest.h"

namespace {

using vp::common::Case;
using vp::common::edit_distance;
using vp::common::Nearest;

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("add", "add"), 0u);
  EXPECT_EQ(edit_distance("ad", "add"), 1u);       // insertion
  EXPECT_EQ(edit_distance("addd", "add"), 1u);     // deletion
  EXPECT_EQ(edit_distance("xbar.rowz", "xbar.rows"), 1u);  // substitution
  EXPECT_EQ(edit_distance(".wrod", ".word"), 2u);  // a swap is two edits
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("flaw", "lawn"), 2u);
}

TEST(EditDistance, IsSymmetric) {
  for (const auto& [a, b] : {std::pair<const char*, const char*>{"kitten", "sitting"}, {"dma.gl", "dma"},
                             {"run.cycle", "run.cycles"}, {"", "x"}})
    EXPECT_EQ(edit_distance(a, b), edit_distance(b, a)) << a << " / " << b;
}

TEST(EditDistance, CaseIsAChoice) {
  EXPECT_EQ(edit_distance("ADD", "add"), 3u);
  EXPECT_EQ(edit_distance("ADD", "add", Case::kInsensitive), 0u);
  EXPECT_EQ(edit_distance("Vadd", "vadd", Case::kSensitive), 1u);
  EXPECT_EQ(edit_distance("VADX", "vadd", Case::kInsensitive), 1u);
  // Only ASCII letters fold; other characters compare as they are.
  EXPECT_EQ(edit_distance("a_1", "A_1", Case::kInsensitive), 0u);
  EXPECT_EQ(edit_distance("[", "{", Case::kInsensitive), 1u);
}

TEST(Nearest, PicksTheClosestCandidate) {
  Nearest n("xbar.rowz", 2);
  for (const char* c : {"xbar.cols", "xbar.rows", "adc.bits"}) n.offer(c);
  EXPECT_TRUE(n.found());
  EXPECT_EQ(n.best(), "xbar.rows");
}

TEST(Nearest, OnATieTheFirstOfferedWins) {
  Nearest a("cat", 2);
  a.offer("bat");
  a.offer("cot");
  EXPECT_EQ(a.best(), "bat");
  Nearest b("cat", 2);
  b.offer("cot");
  b.offer("bat");
  EXPECT_EQ(b.best(), "cot");
  // A later, strictly closer candidate still replaces an earlier one.
  b.offer("cat");
  EXPECT_EQ(b.best(), "cat");
}

TEST(Nearest, NothingBeyondTheLimit) {
  Nearest n("abcdef", 2);
  n.offer("abcxyz");  // 3 edits away
  EXPECT_FALSE(n.found());
  EXPECT_EQ(n.best(), "");
  n.offer("abcdxy");  // exactly 2: inside the limit
  EXPECT_TRUE(n.found());
  EXPECT_EQ(n.best(), "abcdxy");
}

TEST(Nearest, NoCandidatesNoSuggestion) {
  Nearest n("anything", 100);
  EXPECT_FALSE(n.found());
  EXPECT_TRUE(n.best().empty());
}

TEST(Nearest, HonoursCase) {
  Nearest sensitive("ADD", 1);
  sensitive.offer("add");
  EXPECT_FALSE(sensitive.found());
  Nearest insensitive("ADD", 1, Case::kInsensitive);
  insensitive.offer("sub");
  insensitive.offer("add");
  EXPECT_EQ(insensitive.best(), "add");  // the candidate's own spelling
}

TEST(Nearest, KeepsItsOwnCopyOfTheWord) {
  std::string word = "lodd";
  Nearest n(word, 1);
  word = "zzzz";
  n.offer("load");
  EXPECT_EQ(n.best(), "load");
}

}  // namespace
