// Residual Adds fused into the Conv that produces one of their inputs
// (map_crossbars runs it first).
#include <algorithm>

#include "vp/cc/passes.h"

namespace vp::cc {

// Residual Adds computed by the Conv that produces one of their inputs:
// the Conv's output has no other reader and is no graph output, so it need
// not go to global memory and come back.
void fuse_adds(Graph& g) {
  for (Node& n : g.nodes) {
    n.fused_next = -1;
    n.fused = false;
  }
  for (std::size_t ai = 0; ai < g.nodes.size(); ++ai) {
    Node& add = g.nodes[ai];
    if (add.op != OpKind::Add || add.in.size() != 2) continue;
    for (int k = 0; k < 2; ++k) {
      const int v = add.in[static_cast<std::size_t>(k)];
      const int p = g.producer(v);
      if (p < 0) continue;
      Node& conv = g.nodes[static_cast<std::size_t>(p)];
      if (!op_has(conv.op, op_crossbar) || conv.fused_next >= 0) continue;
      if (g.consumers(v).size() != 1 || !(g.val(v).shape == g.val(add.out[0]).shape)) continue;
      if (std::find(g.outputs.begin(), g.outputs.end(), v) != g.outputs.end()) continue;
      // The other input must exist when the Conv runs (a projection
      // shortcut after the Conv in node order takes the Add instead).
      if (g.producer(add.in[static_cast<std::size_t>(1 - k)]) > p) continue;
      conv.fused_next = static_cast<int>(ai);
      add.fused = true;
      break;
    }
  }
}

}  // namespace vp::cc
