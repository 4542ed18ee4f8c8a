// Splitting one layer's weights over chips (vp-cc --chips): a Conv (or the
// Gemm it came from) whose one copy needs more crossbars than `limit`
// becomes P Convs over consecutive slices of its output channels, each on
// the whole input, and a Concat of their outputs. Every slice keeps the
// layer's scale and per-channel integers, and the Concat of equal scales
// copies codes, so the golden model's bytes are the layer's own. The
// partition can then put the slices on different chips: VGG's first fully
// connected layer (25,088 x 4,096, 6,272 crossbars of sidra-y1's 6,400)
// goes half to the chip of the convolutions and half to the chip of the
// classifier.
//
// Slices are whole column tiles (lcols channels), so no tile straddles two.
#include <algorithm>
#include <string>

#include "vp/cc/passes.h"

namespace vp::cc {

namespace {

template <class T>
std::vector<T> slice_rows(const std::vector<T>& v, std::int64_t rows, std::int64_t r0, std::int64_t r1) {
  if (v.size() <= 1) return v;  // one value for the whole layer
  const auto per = static_cast<std::int64_t>(v.size()) / rows;
  return std::vector<T>(v.begin() + r0 * per, v.begin() + r1 * per);
}

}  // namespace

int split_wide_layers(Graph& g, const Target& t, std::int64_t limit) {
  const std::vector<LayerDemand> d = layer_demands(g, t);
  limit = std::max<std::int64_t>(limit, 1);
  std::vector<Node> nodes;
  int split = 0;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const std::int64_t N = g.val(n.out[0]).shape.c;
    const int L = t.lcols(xbar_format(n, t));
    const std::int64_t tiles = (N + L - 1) / L;
    if (!op_has(n.op, op_crossbar) || d[i].crossbars <= limit || n.geom.group != 1 || tiles < 2) {
      nodes.push_back(n);
      continue;
    }
    const std::int64_t parts = std::min<std::int64_t>(tiles, (d[i].crossbars + limit - 1) / limit);
    ++split;
    Node concat;
    concat.name = n.name + ".concat";
    concat.op = OpKind::Concat;
    concat.out = n.out;
    for (std::int64_t p = 0; p < parts; ++p) {
      const std::int64_t c0 = tiles * p / parts * L, c1 = std::min(N, tiles * (p + 1) / parts * L);
      const std::string suffix = ".part" + std::to_string(p);
      Node s = n;
      s.name += suffix;
      s.q.w = slice_rows(n.q.w, N, c0, c1);
      s.q.bias = slice_rows(n.q.bias, N, c0, c1);
      s.q.mult = slice_rows(n.q.mult, N, c0, c1);
      s.q.shift = slice_rows(n.q.shift, N, c0, c1);
      for (std::size_t k = 1; k < s.in.size(); ++k)
        if (g.val(s.in[k]).is_const) s.in[k] = g.constant_rows(s.in[k], c0, c1, suffix);
      Value y = g.val(n.out[0]);
      y.name += suffix;
      y.shape.c = c1 - c0;
      if (y.dims.size() >= 2) y.dims[1] = c1 - c0;
      y.buf = Buffer{};
      s.out = {g.add_value(std::move(y))};
      concat.in.push_back(s.out[0]);
      nodes.push_back(std::move(s));
    }
    // Every slice has the layer's scale: the Concat copies codes.
    for (std::size_t k = 0; k < concat.in.size(); ++k) {
      concat.q.mult.push_back(1);
      concat.q.shift.push_back(0);
    }
    nodes.push_back(std::move(concat));
  }
  g.nodes = std::move(nodes);
  return split;
}

}  // namespace vp::cc
