// Plan: a global-memory buffer for every activation, channels-last with a
// border wide enough for every window that reads it (the largest pad of its
// consumers). The border holds 0, what zero-point-0 padding means, or -128
// for a max pooling over values that may be negative. Graph inputs that need
// a border get a second, plain buffer that the .input binding names; the
// program's first layer copies it in.
#include <algorithm>

#include "vp/cc/passes.h"

namespace vp::cc {

void plan_memory(Graph& g, const Target& t) {
  for (auto& v : g.values) v.buf = Buffer{};
  g.input_plain.assign(g.inputs.size(), -1);
  // Borders.
  for (std::size_t id = 0; id < g.values.size(); ++id) {
    Value& v = g.values[id];
    if (v.is_const) continue;
    bool zero = false, neg = false;
    for (int c : g.consumers(static_cast<int>(id))) {
      const Node& n = g.nodes[static_cast<std::size_t>(c)];
      if (!op_has(n.op, op_window)) continue;
      if (n.in[0] != static_cast<int>(id)) continue;
      const int p = std::max({n.geom.pt, n.geom.pl, n.geom.pb, n.geom.pr});
      if (p == 0) continue;
      v.buf.pad = std::max(v.buf.pad, p);
      if (n.op == OpKind::MaxPool && !v.nonneg) neg = true;
      else zero = true;
    }
    if (zero && neg)
      throw CompileError("tensor '" + v.name +
                         "' is padded both for a convolution (0) and for a max pooling over negative values (-128)");
    v.buf.fill = neg ? -128 : 0;
  }
  // Addresses: a bump allocator, 64-byte aligned, nothing reused (the
  // layer-sequential schedule would allow reuse; global memory is large).
  std::int64_t top = 0;
  auto alloc = [&](std::int64_t bytes) {
    const std::int64_t a = top;
    top = (top + bytes + 63) / 64 * 64;
    return a;
  };
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    Value& v = g.val(g.inputs[i]);
    v.buf.addr = alloc(v.buf.bytes(v.shape));
    g.input_plain[i] = v.buf.pad ? alloc(v.shape.numel()) : v.buf.addr;
  }
  for (auto& n : g.nodes)
    for (int o : n.out) {
      Value& v = g.val(o);
      if (v.buf.addr < 0) v.buf.addr = alloc(v.buf.bytes(v.shape));
    }
  for (int o : g.outputs)
    if (g.val(o).buf.pad)
      throw CompileError("graph output '" + g.val(o).name + "' is also read by a padded window; not supported");
  if (top > t.gmem_bytes)
    throw CompileError("activations need " + std::to_string(top) + " bytes of global memory, chip '" + t.name +
                       "' has " + std::to_string(t.gmem_bytes));
  g.gmem_used = top;
}

}  // namespace vp::cc
