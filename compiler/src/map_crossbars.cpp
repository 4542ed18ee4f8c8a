// Map: every operator with crossbar weights (operators.def: Conv, which
// Gemm, MatMul and BatchNormalization have become) becomes a weight matrix
// of K = kh*kw*Cin rows by N output channels, tiled into crossbar blocks of
// rows x lcols and placed on (cluster, CU, crossbar).
//
// Rows follow the channel-wise lowering (seeds: RAPTOR thesis): row
// (r*kw + s)*C' + c holds input channel c of window position (r, s), so a
// window in the channels-last activation is kh contiguous runs of kw*C bytes.
// A column tile of lcols output channels keeps all its row tiles in one CU,
// fired together as an MVM `sum` group; a tile needing more crossbars than a
// CU has is split over several CUs whose partial sums travel on the NoC to
// the first. CUs are handed out in order, so a layer's CUs share clusters
// and consecutive layers sit next to each other on the mesh.
#include <algorithm>

#include "vp/cc/passes.h"

namespace vp::cc {

void map_crossbars(Graph& g, const Target& t) {
  const int X = t.xbars_per_cu, L = t.lcols();
  int next_core = 0;
  std::int64_t total_xbars = 0;
  for (Node& n : g.nodes) {
    n.tiles.clear();
    n.cores.clear();
    if (!op_has(n.op, op_crossbar)) continue;
    const Shape in = g.val(n.in[0]).shape;
    const int N = static_cast<int>(g.val(n.out[0]).shape.c);
    const int G = n.geom.group, Cg = static_cast<int>(in.c) / G, Ng = N / G;
    // Column tiles: lcols channels, never straddling more groups than needed.
    for (int n0 = 0; n0 < N; n0 += L) {
      ColumnTile ct;
      ct.n0 = n0;
      ct.ncols = std::min(L, N - n0);
      ct.ci0 = (n0 / Ng) * Cg;
      ct.ci1 = ((n0 + ct.ncols - 1) / Ng + 1) * Cg;
      ct.k = std::int64_t{n.geom.kh} * n.geom.kw * (ct.ci1 - ct.ci0);
      n.tiles.push_back(ct);
    }
    // Placement: whole tiles packed into a CU while its crossbars last.
    int core = -1, used = X;
    for (ColumnTile& ct : n.tiles) {
      const int rt = static_cast<int>((ct.k + t.rows - 1) / t.rows);
      total_xbars += rt;
      if (rt <= X) {
        if (used + rt > X) {
          core = next_core++;
          used = 0;
        }
        ct.parts.push_back({core, used, 0, rt});
        used += rt;
      } else {
        for (int r0 = 0; r0 < rt; r0 += X) ct.parts.push_back({next_core++, 0, r0, std::min(X, rt - r0)});
        used = X;
      }
    }
    for (const auto& ct : n.tiles)
      for (const auto& p : ct.parts)
        if (std::find(n.cores.begin(), n.cores.end(), p.core) == n.cores.end()) n.cores.push_back(p.core);
  }
  if (total_xbars > t.crossbars() || next_core > t.cores())
    throw CompileError("model needs " + std::to_string(total_xbars) + " crossbars on " + std::to_string(next_core) +
                       " CUs, chip '" + t.name + "' has " + std::to_string(t.crossbars()) + " crossbars on " +
                       std::to_string(t.cores()) + " CUs");
  // Operators without weights run on the first CU of the layer that feeds
  // them (their input is freshest there), or on CU 0.
  for (Node& n : g.nodes) {
    if (op_has(n.op, op_crossbar)) continue;
    const int p = g.producer(n.in[0]);
    n.cores = {p >= 0 && !g.nodes[static_cast<std::size_t>(p)].cores.empty() ? g.nodes[static_cast<std::size_t>(p)].cores[0]
                                                                             : 0};
  }
}

}  // namespace vp::cc
