// Shared loads: the CUs of one copy of a line-buffered Conv, in one
// cluster, take each row step's input rows from a slot of their cluster's
// SRAM, which the copy's first CU fills, instead of each bringing them over
// the mesh (Node::share_copy, Node::staging).
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "emit_loops.h"
#include "vp/cc/graph.h"
#include "vp/cc/target.h"

namespace vp::cc {

// Whether node n, mapped with `cus_per_copy` CUs per copy, would share its
// copies' loads: a Conv whose windows come through a line buffer, a copy of
// at least two CUs and no more than a cluster holds.
bool wants_shared_loads(const Graph& g, const Node& n, int cus_per_copy, const Target& t);

// Sets n.share_copy once its copies are placed: copy r shares its loads
// when `on`, n wants them and all the copy's CUs sit in one cluster.
void mark_shared_loads(const Graph& g, Node& n, int cus_per_copy, const Target& t, bool on);

// Places the CUs of the copies that will share their loads, before the
// others (map_crossbars' spread placement): largest first, each copy in
// the cluster with the most CUs still free, the first such in `order`.
// taken_in counts each cluster's CUs taken. A copy no cluster has room for
// is left out (its CUs are dealt as any others, and load their own rows).
struct CopyGroup {
  std::size_t stage;
  int copy, cus;
};
std::map<std::pair<std::size_t, int>, std::vector<int>> place_copy_groups(std::vector<CopyGroup> groups,
                                                                         const std::vector<int>& order,
                                                                         const Target& t, std::vector<int>& taken_in);

// The CUs of copy r of n, in the order the mapping took them: the first
// fills the slot.
std::vector<int> copy_cores(const Node& n, int copy);
// The copy of n that core c computes, -1 for none.
int copy_of(const Node& n, int c);

// Bytes of a copy's slot: the line buffer's kh rows at its stride.
std::int64_t staging_bytes(const Graph& g, const Node& n, const Target& t);

// The tag of the slot's messages (the row hand-over's and the row
// releases' tags stay below it).
inline constexpr int kSharedLoadTag = 255;

namespace emit {

// The row hook of a CU of a copy that shares its loads, in place of
// line_rows: the first CU waits until every other CU has taken the last
// step's rows from the slot, fills the slot with this step's rows, tells
// the others; each CU then copies the rows into its line buffer, and the
// others tell the first once their copies are done.
RowHook shared_line_rows(Ctx& e, int c, const Node& n, const LineBuffer& lb, std::int64_t row);
// Around a CU's loops over its share: before, each CU but the first marks
// the slot free; after, the first takes the last of those marks.
void shared_loads_begin(Ctx& e, int c, const Node& n);
void shared_loads_end(Ctx& e, int c, const Node& n);
// Whether core c of n shares its copy's loads.
bool shares_loads(const Node& n, int c);
// A mark or token of one word (its value unused) between c and each of
// `peers`, on kSharedLoadTag: the word's address and size set once, then
// one li and one send or recv a peer (r12 to r14).
void messages(Ctx& e, int c, const char* op, const std::vector<int>& peers, std::int64_t word);

}  // namespace emit
}  // namespace vp::cc
