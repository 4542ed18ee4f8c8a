// The stretches of the pipeline (passes.h, node_segments): a reader of a
// map reduced to one pixel (a global pooling's output) starts only once
// the map's last row is in, so each stretch between such reductions takes
// about its own slowest stage, and the copy choice counts each stretch's.
#include <algorithm>
#include <vector>

#include "vp/cc/passes.h"

namespace vp::cc {

std::vector<int> node_segments(const Graph& g) {
  std::vector<int> seg(g.nodes.size(), 0);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    for (int v : g.nodes[i].in) {
      if (v < 0) continue;
      const int p = g.producer(v);
      if (p < 0) continue;
      const Node& w = g.nodes[static_cast<std::size_t>(p)];
      const Shape& o = g.val(w.out[0]).shape;
      bool reduces = false;
      for (int u : w.in)
        if (u >= 0 && !g.val(u).is_const && o.h * o.w == 1 && g.val(u).shape.h * g.val(u).shape.w > 1) reduces = true;
      seg[i] = std::max(seg[i], seg[static_cast<std::size_t>(p)] + (reduces ? 1 : 0));
    }
  }
  return seg;
}

}  // namespace vp::cc
