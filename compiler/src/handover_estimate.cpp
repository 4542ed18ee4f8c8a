// The row hand-over's messages per core, before emission (handover_estimate.h).
// A writer core sends each of its steps to every reader core whose share
// reads rows of its strip; a reader core takes every step of each writer
// core whose strip it reads, since its rows reach the map's last
// (plan_sync: a reader takes a writer's tokens up to the last step
// touching the rows it needs). Strips and row groups are share_loop's.
#include "handover_estimate.h"

#include <algorithm>
#include <utility>

#include "schedule_cost.h"
#include "vp/cc/passes.h"

namespace vp::cc {

HandoverEstimate::HandoverEstimate(const Graph& g, const std::vector<int>& nodes, const std::vector<int>& cus_per_copy)
    : g_(g), nodes_(nodes), cus_(cus_per_copy), edges_of_(nodes.size()) {
  std::vector<int> stage_of(g.nodes.size(), -1);
  for (std::size_t i = 0; i < nodes.size(); ++i) stage_of[static_cast<std::size_t>(nodes[i])] = static_cast<int>(i);
  auto writer_stage = [&](int v) {
    int p = g.producer(v);
    if (p >= 0 && g.nodes[static_cast<std::size_t>(p)].fused)  // a fused Add: its Conv stores the value
      for (std::size_t i = 0; i < g.nodes.size(); ++i)
        if (g.nodes[i].fused_next == p) p = static_cast<int>(i);
    return p >= 0 ? stage_of[static_cast<std::size_t>(p)] : -1;
  };
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = g.nodes[static_cast<std::size_t>(nodes[i])];
    std::vector<std::pair<int, bool>> ins{{n.in[0], op_has(n.op, op_window)}};
    if (n.op != OpKind::Conv)
      for (std::size_t k = 1; k < n.in.size(); ++k) ins.emplace_back(n.in[k], false);
    if (const Node* add = fused_residual(g, n)) ins.emplace_back(add->in[add->in[0] == n.out[0] ? 1 : 0], false);
    for (const auto& [v, window] : ins) {
      if (v < 0) continue;
      const int w = writer_stage(v);
      if (w < 0 || static_cast<std::size_t>(w) == i) continue;
      edges_.push_back({static_cast<std::size_t>(w), i, window ? n.geom.kw : 1, window ? n.geom.sw : 1});
      edges_of_[static_cast<std::size_t>(w)].push_back(edges_.size() - 1);
      edges_of_[i].push_back(edges_.size() - 1);
    }
  }
}

std::int64_t HandoverEstimate::messages(std::size_t i, int k, const std::vector<int>& copies) const {
  auto shape = [&](std::size_t s) -> const Shape& {
    return g_.val(g_.nodes[static_cast<std::size_t>(nodes_[s])].out[0]).shape;
  };
  // Strips S and row groups G of a map cut among R copies (share_loop).
  auto cut = [&](std::size_t s, int R) {
    const Shape& o = shape(s);
    if (o.h * o.w < kStripRows * o.w * R) return std::make_pair(std::int64_t{1}, std::int64_t{R});
    const std::int64_t S = std::max<std::int64_t>(1, std::min<std::int64_t>(R, o.w / g_.min_strip));
    return std::make_pair(S, std::max<std::int64_t>(1, R / S));
  };
  std::int64_t m = 0;
  for (std::size_t ei : edges_of_[i]) {
    const Edge& e = edges_[ei];
    const int kw = e.writer == i ? k : copies[e.writer], kr = e.reader == i ? k : copies[e.reader];
    const auto [Sw, Gw] = cut(e.writer, kw);
    const auto [Sr, Gr] = cut(e.reader, kr);
    const std::int64_t ws = std::max<std::int64_t>(1, shape(e.writer).w / Sw);         // a writer strip's columns
    const std::int64_t rs = std::max<std::int64_t>(1, shape(e.reader).w / Sr) * e.sw;  // a reader strip's step
    const std::int64_t rin = rs + e.kw - e.sw;                                         // and its input columns
    const std::int64_t over_r = std::min(Sr, (ws + e.kw - 1 + rs - 1) / rs + 1);      // reader strips on a writer strip
    const std::int64_t over_w = std::min(Sw, (rin + ws - 1) / ws + 1);                // writer strips under a reader strip
    const std::int64_t H = shape(e.writer).h;
    if (e.writer == i)
      m += (H + Gw - 1) / Gw * over_r * Gr * cus_[e.reader];
    else
      m += over_w * H * cus_[e.writer];
  }
  return m;
}

}  // namespace vp::cc
