// Shared loads (shared_loads.h). The slot's protocol, per copy, with F the
// first CU and the others O:
//   before the share: each O sends F one mark (the slot is free);
//   every row step:   F takes a mark from each O, brings the step's rows
//                     into the slot (dma.gs), waits for them, sends each O
//                     a token; each O takes its token; every CU copies the
//                     rows into its line buffer (dma.sl); each O waits for
//                     its copy and sends F a mark;
//   after the share:  F takes the last mark of each O.
// Every message is taken, so nothing is left in a mailbox, and F overwrites
// the slot only once every O has copied the step before out of it.
#include "shared_loads.h"

#include <algorithm>

#include "schedule_cost.h"
#include "vp/isa/isa.h"

namespace vp::cc {

namespace {
// Whether the Conv reads its windows through a line buffer (emit::line_buffer
// decides so), and the bytes of one buffered row of the widest output row.
bool line_buffered(const Graph& g, const Node& n, const Target& t, std::int64_t* span) {
  return use_line_buffer(n.geom, g.val(n.in[0]).shape, g.val(stored_value(g, n)).shape, t.spad_bytes, span);
}
}  // namespace

bool wants_shared_loads(const Graph& g, const Node& n, int cus_per_copy, const Target& t) {
  if (n.op != OpKind::Conv || n.fused || cus_per_copy < 2 || cus_per_copy > t.cus_per_cluster) return false;
  return line_buffered(g, n, t, nullptr);
}

std::map<std::pair<std::size_t, int>, std::vector<int>> place_copy_groups(std::vector<CopyGroup> groups,
                                                                         const std::vector<int>& order,
                                                                         const Target& t, std::vector<int>& taken_in) {
  std::stable_sort(groups.begin(), groups.end(), [](const CopyGroup& a, const CopyGroup& b) { return a.cus > b.cus; });
  std::map<std::pair<std::size_t, int>, std::vector<int>> placed;
  for (const CopyGroup& grp : groups) {
    int best = -1;
    for (int cl : order) {
      const int taken = taken_in[static_cast<std::size_t>(cl)];
      if (t.cus_per_cluster - taken >= grp.cus && (best < 0 || taken < taken_in[static_cast<std::size_t>(best)])) best = cl;
    }
    if (best < 0) continue;
    auto& cus = placed[{grp.stage, grp.copy}];
    for (int k = 0; k < grp.cus; ++k) cus.push_back(best * t.cus_per_cluster + taken_in[static_cast<std::size_t>(best)]++);
  }
  return placed;
}

std::vector<int> copy_cores(const Node& n, int copy) {
  std::vector<int> cores;
  for (const ColumnTile& ct : n.tiles)
    if (ct.copy == copy)
      for (const ColumnTile::Part& p : ct.parts)
        if (std::find(cores.begin(), cores.end(), p.core) == cores.end()) cores.push_back(p.core);
  return cores;
}

void mark_shared_loads(const Graph& g, Node& n, int cus_per_copy, const Target& t, bool on) {
  n.share_copy.assign(static_cast<std::size_t>(n.replicas), false);
  n.staging.assign(static_cast<std::size_t>(n.replicas), -1);
  if (!on || !wants_shared_loads(g, n, cus_per_copy, t)) return;
  for (int r = 0; r < n.replicas; ++r) {
    const std::vector<int> cores = copy_cores(n, r);
    bool one = cores.size() >= 2;
    for (int c : cores) one = one && t.cluster_of(c) == t.cluster_of(cores[0]);
    n.share_copy[static_cast<std::size_t>(r)] = one;
  }
}

std::int64_t staging_bytes(const Graph& g, const Node& n, const Target& t) {
  std::int64_t span = 0;
  line_buffered(g, n, t, &span);
  return (span + 7) / 8 * 8 * n.geom.kh;  // emit::line_buffer's stride
}

int copy_of(const Node& n, int c) {
  for (const ColumnTile& ct : n.tiles)
    for (const ColumnTile::Part& p : ct.parts)
      if (p.core == c) return ct.copy;
  return -1;
}

namespace emit {
void messages(Ctx& e, int c, const char* op, const std::vector<int>& peers, std::int64_t word) {
  if (peers.empty()) return;
  e.li(c, 13, word);
  e.li(c, 14, 4);
  for (int peer : peers) {
    e.li(c, 12, peer);
    e.ins(c, std::string(op) + " r13, r14, r12, " + std::to_string(kSharedLoadTag));
  }
}

bool shares_loads(const Node& n, int c) {
  const int r = copy_of(n, c);
  return r >= 0 && static_cast<std::size_t>(r) < n.staging.size() && n.staging[static_cast<std::size_t>(r)] >= 0;
}

void shared_loads_begin(Ctx& e, int c, const Node& n) {
  if (!shares_loads(n, c)) return;
  const std::vector<int> cores = copy_cores(n, copy_of(n, c));
  if (cores[0] != c) messages(e, c, "send", {cores[0]}, e.words(c, {0}));
}

void shared_loads_end(Ctx& e, int c, const Node& n) {
  if (!shares_loads(n, c)) return;
  const std::vector<int> cores = copy_cores(n, copy_of(n, c));
  if (cores[0] == c) messages(e, c, "recv", {cores.begin() + 1, cores.end()}, e.words(c, {0}));
}

RowHook shared_line_rows(Ctx& e, int c, const Node& n, const LineBuffer& lb, std::int64_t row) {
  const std::vector<int> cores = copy_cores(n, copy_of(n, c));
  const std::vector<int> others(cores.begin() + 1, cores.end());
  const std::int64_t slot = n.staging[static_cast<std::size_t>(copy_of(n, c))];
  const std::int64_t word = e.words(c, {0});
  const std::string wait_dma = "wait " + std::to_string(isa::wait_bit(isa::Unit::Dma));
  return line_rows(e, c, n, lb, [&e, c, &n, lb, row, cores, others, slot, word, wait_dma](std::int64_t cols, int y0) {
    const int kh = n.geom.kh;
    const bool first = cores[0] == c;
    if (first) {
      messages(e, c, "recv", others, word);
      e.li(c, 12, lb.span(cols));
      for (int y = y0; y < kh; ++y) {
        e.ins(c, "addi r10, r21, " + std::to_string(std::int64_t{y} * n.geom.dh * row));
        ring_address(e, c, 10, lb);
        e.li(c, 11, slot + y * lb.stride);
        e.ins(c, "dma.gs r11, r10, r12");
      }
      // The slot's rows must be there before the others hear of them.
      e.ins(c, wait_dma);
      messages(e, c, "send", others, word);
    } else {
      messages(e, c, "recv", {cores[0]}, word);
    }
    e.li(c, 12, lb.span(cols));
    for (int y = y0; y < kh; ++y) {
      e.li(c, 10, slot + y * lb.stride);
      e.li(c, 11, lb.at + y * lb.stride);
      e.ins(c, "dma.sl r11, r10, r12");
    }
    if (!first) {
      // The copy out of the slot must be done before the first CU may
      // fill it again.
      e.ins(c, wait_dma);
      messages(e, c, "send", {cores[0]}, word);
    }
  });
}

}  // namespace emit
}  // namespace vp::cc
