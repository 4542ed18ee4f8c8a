#include "energy_estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "vp/cc/passes.h"
#include "vp/hw/crossbar/dac.h"

namespace vp::cc {

std::vector<ValueBytes> memory_bytes_by_value(const Graph& g, const Node& n, const Target& t) {
  std::vector<ValueBytes> out;
  if (n.memory_bytes <= 0) return out;
  const auto add = [&](const Value& v, std::int64_t bytes, bool written) {
    const bool window = t.sram_global_base > 0 && (v.buf.addr < 0 || v.buf.addr >= t.sram_global_base);
    out.push_back({&v, bytes, written, window});
  };
  const Node& last = n.fused_next >= 0 ? g.nodes[static_cast<std::size_t>(n.fused_next)] : n;
  const Value& y = g.val(last.out[0]);
  const std::int64_t written = std::min(n.memory_bytes, y.shape.numel());
  add(y, written, true);
  std::vector<const Value*> ins;
  std::int64_t in_total = 0;
  for (const Node* m : {&n, &last})
    for (int v : m->in) {
      // A reader handed its rows copies them within its cluster (handed_rows.h).
      if (m == &n && n.handed_from >= 0 && v == n.in[0]) continue;
      const Value& x = g.val(v);
      if (x.is_const || v == n.out[0] || std::find(ins.begin(), ins.end(), &x) != ins.end()) continue;
      ins.push_back(&x);
      in_total += x.shape.numel();
    }
  const std::int64_t read = n.memory_bytes - written;
  for (const Value* x : ins) add(*x, in_total ? read * x->shape.numel() / in_total : 0, false);
  return out;
}

MemoryBytes memory_bytes_of(const Graph& g, const Node& n, const Target& t) {
  MemoryBytes b;
  for (const ValueBytes& v : memory_bytes_by_value(g, n, t)) {
    (v.window ? b.window : b.dram) += v.bytes;
    if (v.written) (v.window ? b.window_written : b.dram_written) += v.bytes;
  }
  return b;
}

namespace {

// Mean hops of a flit: between two clusters taken at random (the SRAM
// window interleaves every tensor over all of them), or from the memory's
// router, for global memory proper.
double mean_hops(const Target& t, bool from_memory) {
  const double c = t.mesh_cols, r = static_cast<double>(t.clusters) / t.mesh_cols;
  if (from_memory) {
    const double mr = t.gmem_attach_cluster / t.mesh_cols, mc = t.gmem_attach_cluster % t.mesh_cols;
    double sum = 0;
    for (int y = 0; y < r; ++y)
      for (int x = 0; x < c; ++x) sum += std::abs(y - mr) + std::abs(x - mc);
    return sum / t.clusters;
  }
  return (c * c - 1) / (3 * c) + (r * r - 1) / (3 * r);
}

// Vector elements of one inference (the emitters' loops, counted coarsely).
double vector_elements(const Graph& g, const Node& n) {
  const Shape& o = g.val(n.out[0]).shape;
  const Shape& x = g.val(n.in[0]).shape;
  const double pixels = static_cast<double>(o.h * o.w);
  switch (n.op) {
    case OpKind::Conv: {
      const double k = n.tiles.empty() ? 0.0 : static_cast<double>(n.tiles[0].k);
      const double bins = n.replicas > 0 ? static_cast<double>(n.cores.size()) / n.replicas : 1.0;
      // Each CU of a copy assembles its window (then rounds and clamps it
      // for fewer input bits, and repeats it for redundant copies); the
      // owner adds the bias, requantizes and clamps, and a fused residual
      // Add widens, scales and adds.
      const double window = k * (n.redundancy + (n.input_bits < 8 ? 2 : 0));
      // (A fused table activation: one lookup of each channel.)
      const bool residual = fused_residual(g, n) != nullptr, table = n.fused_next >= 0 && !residual;
      return pixels * (bins * window + static_cast<double>(o.c) * (3 + (residual ? 6 : 0) + (table ? 1 : 0)));
    }
    case OpKind::MaxPool:
    case OpKind::AveragePool:
      return pixels * static_cast<double>(o.c) * (2.0 * n.geom.kh * n.geom.kw + 1);
    case OpKind::GlobalAveragePool:
      return 2.0 * static_cast<double>(x.numel());
    case OpKind::MatMul:
      return 2.0 * static_cast<double>(o.numel()) * static_cast<double>(x.c / std::max(1, n.heads));
    case OpKind::Add:
      return 6.0 * static_cast<double>(o.numel());
    default:
      return 4.0 * static_cast<double>(o.numel());
  }
}

}  // namespace

LayerEnergy layer_energy(const Graph& g, const Node& n, const Target& t) {
  LayerEnergy e;
  if (n.fused) return e;  // computed, and counted, by its Conv
  const Target::Energy& p = t.energy;
  if (op_has(n.op, op_crossbar) && !n.tiles.empty()) {
    const Shape& o = g.val(n.out[0]).shape;
    std::int64_t xbars = 0;
    for (const auto& ct : n.tiles)
      for (const auto& part : ct.parts) xbars += std::int64_t{part.row_tiles} * part.lanes;
    const double activations = static_cast<double>(o.h * o.w) * static_cast<double>(xbars) /
                               std::max(1, n.replicas * n.lanes) * n.reads;
    const double steps = hw::Dac(t.dac_bits).steps(n.input_bits, true) *
                         std::ceil(static_cast<double>(t.rows) / t.dac_rows_per_step);
    const double per_step = t.rows * p.dac_pj + static_cast<double>(t.rows) * t.cols * p.xbar_read_pj_per_cell +
                            t.cols * (p.sample_hold_pj + p.adc_pj + p.shift_add_pj);
    e.crossbar_pj = activations * steps * per_step;
  }
  e.vector_pj = vector_elements(g, n) * p.vector_pj_per_element;
  const MemoryBytes m = memory_bytes_of(g, n, t);
  e.memory_pj = static_cast<double>(m.window) * (p.sram_pj_per_byte + 8 * p.noc_pj_per_bit_hop * mean_hops(t, false)) +
                static_cast<double>(m.dram) * (p.gmem_pj_per_byte + 8 * p.noc_pj_per_bit_hop * mean_hops(t, true));
  return e;
}

}  // namespace vp::cc
