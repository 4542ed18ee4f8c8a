// Handed rows: a 1x1 Conv (the reader) whose input is a residual block's
// output, stored by a Conv that computes the block's Add after itself (the
// writer), takes as many copies as the writer when each writer copy
// computes every channel on one CU, and reader copy r sits on a CU of the
// cluster of writer copy r (map_crossbars). Writer copy r writes each row
// of its share into a slot of two rows in that cluster's SRAM (dma.ls) as
// well as into the value, and reader copy r copies it from there (dma.sl):
// the reader's rows stay on the cluster's bus instead of crossing the mesh
// (Node::handed_from, Node::hand_slot). The slot's protocol, per pair:
//   before the share: the reader sends the writer two marks (both halves
//                     free); the writer takes one;
//   every row step:   the writer stores its groups into the value and the
//                     current half, waits for its DMAs, sends the reader a
//                     token, takes a mark (the other half is free) and
//                     turns to it; the reader takes the token, copies the
//                     row out of its current half, waits, sends a mark and
//                     turns to the other half;
//   after the share:  the writer takes the last mark.
// Every message is taken, so nothing is left in a mailbox, and the writer
// writes a half only once the reader has copied the row before out of it.
#pragma once

#include <cstdint>

#include "emit_loops.h"
#include "shared_loads.h"
#include "vp/cc/graph.h"
#include "vp/cc/target.h"

namespace vp::cc {

// The node index of the Conv that would hand node q its input rows, or -1:
// q a Conv that computes nothing after itself, 1x1 with stride and
// dilation 1, no pad and one group, reading its input through a line
// buffer; the input stored by an unfused Conv that computes a residual Add
// after itself, over a map as large as q's output.
int hand_source(const Graph& g, const Node& q, const Target& t);

// Bytes of reader copy r's slot: two rows of its share's widest run.
std::int64_t hand_slot_bytes(const Graph& g, const Node& q, int copy);

// The slot's tokens and marks. The shared loads' tag: the two copies each
// sit on one CU and share no loads, so no other message between them
// carries it.
inline constexpr int kHandTag = kSharedLoadTag;

namespace emit {

// The reader's side, core c of node q: before its share, the two marks;
// its line buffer's row hook in place of line_rows.
void hand_in_begin(Ctx& e, int c, const Node& q);
RowHook handed_line_rows(Ctx& e, int c, const Node& q, const LineBuffer& lb);

// The writer's side, core c of node p. reader < 0: c hands no rows.
struct HandOut {
  int reader = -1;
  std::int64_t a = 0, b = 0;  // the slot's two halves (offsets in the cluster's SRAM)
  std::int64_t half_word = 0;  // the scratchpad word holding the current half
};
// Before the share: the first mark, the first half; sets Ctx::row_end to
// the row step's end (token, mark, the other half).
HandOut hand_out_begin(Ctx& e, int c, const Node& p);
// After a store of the pixels at the output pointer (r25, less `back`
// bytes, plus `offset`) from scratch register `from`, `bytes_reg` bytes:
// the same bytes into the current half, at their place in the row.
void hand_out_store(Ctx& e, int c, const HandOut& h, int from, int bytes_reg, std::int64_t offset);
// After the share: the last mark; clears Ctx::row_end.
void hand_out_end(Ctx& e, int c, const HandOut& h);

}  // namespace emit
}  // namespace vp::cc
