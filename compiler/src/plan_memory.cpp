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
  // Addresses. First the cluster SRAMs' global window (when the chip maps
  // it): the activations that cross the memory port most per byte, so their
  // traffic spreads over the mesh instead of the one port of global memory.
  // Graph outputs and the inputs the host writes stay in global memory, as
  // do borders that must read -128 (the loader fills those) and the outputs
  // of Convs whose Add computes them (never stored). Then a bump allocator,
  // 64-byte aligned, nothing reused (the layers overlap: a buffer's readers
  // may still run when a later layer writes).
  const std::int64_t window_bytes = std::int64_t{t.clusters} * t.sram_bytes;
  const bool window = t.sram_global_base > 0 && t.sram_global_base + window_bytes <= (std::int64_t{1} << 32);
  std::vector<bool> in_gmem_only(g.values.size(), false);
  for (int o : g.outputs) in_gmem_only[static_cast<std::size_t>(o)] = true;
  for (const auto& n : g.nodes)
    if (n.fused_add >= 0) in_gmem_only[static_cast<std::size_t>(n.out[0])] = true;
  std::vector<std::pair<double, int>> candidates;  // (reads per byte written, value)
  auto consider = [&](int id) {
    const Value& v = g.val(id);
    if (!window || in_gmem_only[static_cast<std::size_t>(id)] || v.buf.fill != 0) return;
    double reads = 1;  // its own store
    for (int c : g.consumers(id)) {
      const Node& n = g.nodes[static_cast<std::size_t>(c)];
      reads += op_has(n.op, op_window) && n.in[0] == id ? static_cast<double>(n.geom.kh) / n.geom.sh : 1.0;
    }
    candidates.emplace_back(reads, id);
  };
  for (std::size_t i = 0; i < g.inputs.size(); ++i)
    if (g.val(g.inputs[i]).buf.pad) consider(g.inputs[i]);
  for (const auto& n : g.nodes)
    for (int o : n.out) consider(o);
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::int64_t on_chip = 0;
  for (const auto& [reads, id] : candidates) {
    Value& v = g.val(id);
    const std::int64_t bytes = (v.buf.bytes(v.shape) + 63) / 64 * 64;
    if (v.buf.addr >= 0 || on_chip + bytes > window_bytes) continue;
    v.buf.addr = t.sram_global_base + on_chip;
    on_chip += bytes;
  }
  g.sram_used = on_chip;
  std::int64_t top = 0;
  auto alloc = [&](std::int64_t bytes) {
    const std::int64_t a = top;
    top = (top + bytes + 63) / 64 * 64;
    return a;
  };
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    Value& v = g.val(g.inputs[i]);
    if (v.buf.addr < 0) v.buf.addr = alloc(v.buf.bytes(v.shape));
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
