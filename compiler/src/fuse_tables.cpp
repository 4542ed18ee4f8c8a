// Table activations fused into the Conv that feeds them (map_crossbars
// runs it after fuse_adds).
#include <algorithm>

#include "vp/cc/passes.h"

namespace vp::cc {

// A table operator (a Sigmoid, SiLU, HardSwish, GELU: one `vlut` of the
// codes) whose input is a Conv's output with no other reader, no graph
// output, is applied by that Conv's cores to each pixel after its
// requantization, and the Conv stores the table's output: the Conv's own
// output never goes to memory and come back, and the table takes no CU
// of its own. A Conv that computes a residual Add keeps it (the Add's
// output may be read elsewhere).
void fuse_tables(Graph& g) {
  for (std::size_t ti = 0; ti < g.nodes.size(); ++ti) {
    Node& table = g.nodes[ti];
    if (table.fused || !op_has(table.op, op_table) || table.in.size() != 1) continue;
    const int v = table.in[0];
    const int p = g.producer(v);
    if (p < 0) continue;
    Node& conv = g.nodes[static_cast<std::size_t>(p)];
    if (!op_has(conv.op, op_crossbar) || conv.fused || conv.fused_next >= 0) continue;
    if (g.consumers(v).size() != 1 || !(g.val(v).shape == g.val(table.out[0]).shape)) continue;
    if (std::find(g.outputs.begin(), g.outputs.end(), v) != g.outputs.end()) continue;
    conv.fused_next = static_cast<int>(ti);
    table.fused = true;
  }
}

}  // namespace vp::cc
