// Cost model of the schedule (schedule_cost.h). The DMA and port constants
// are the default timing's: a read request crosses the mesh to the memory
// (noc.hop_cycles per hop, three hops on average on the 4x4 mesh), waits
// gmem.latency_ns, and its data comes back in noc.link_bits flits; the port
// figure was fitted on ResNet-50's measured per-layer cycles
// (docs/compiler.md, "Schedule").
#include "schedule_cost.h"

#include <algorithm>

#include "emit_context.h"
#include "vp/config/cycles.h"
#include "vp/config/param_defaults.h"
#include "vp/hw/crossbar/crossbar_config.h"
#include "vp/hw/crossbar/mvm_timing.h"

namespace vp::cc {
namespace pd = config::param_default;
namespace {
constexpr int kMeanHops = 3;            // mean XY hops to the memory's router on the 4x4 mesh
constexpr std::int64_t kDmaExtra = 0;   // fitted: arbitration and packet headers
constexpr double kPortLinks = 1.0;      // fitted: links carrying the memory's traffic
constexpr std::int64_t kPixelFixed = 12;   // loop and address arithmetic per pixel
constexpr std::int64_t kLayerFixed = 60;   // setup, wait and barrier per layer
}  // namespace

CostModel::CostModel(const Target& t) : t_(t) {
  hw::CrossbarConfig cfg;
  cfg.rows = t.rows;
  cfg.cols = t.cols;
  cfg.cell_bits = t.cell_bits;
  cfg.weight_bits = t.weight_bits;
  cfg.signed_encoding = t.differential ? hw::SignedEncoding::differential : hw::SignedEncoding::offset_slices;
  mvm_ = static_cast<std::int64_t>(hw::MvmTiming(cfg, hw::MvmTimingConfig{}).cycles(8, true));
  // Flits leave the memory's router on its links; with XY routing most
  // responses take one of them.
  port_bytes_per_cycle_ = pd::noc_link_bits / 8.0 * pd::noc_clock_mhz / pd::chip_clock_mhz * kPortLinks;
}

std::int64_t CostModel::dma(std::int64_t bytes) const {
  const std::int64_t lat = static_cast<std::int64_t>(config::ns_to_cycles(pd::gmem_latency_ns, pd::chip_clock_mhz));
  const std::int64_t flits = (bytes * 8 + pd::noc_link_bits - 1) / pd::noc_link_bits;
  return pd::cu_dma_setup_cycles + lat + 2 * kMeanHops * pd::noc_hop_cycles + 4 * pd::noc_local_port_cycles + flits +
         kDmaExtra;
}

std::int64_t CostModel::vec(std::int64_t elems) const {
  return pd::cu_vector_startup_cycles + (elems + pd::cu_vector_lanes - 1) / pd::cu_vector_lanes;
}

std::int64_t CostModel::port(std::int64_t bytes) const {
  return static_cast<std::int64_t>(static_cast<double>(bytes) / port_bytes_per_cycle_);
}

std::int64_t CostModel::stage(const LayerCost& c, int copies) const {
  const std::int64_t share = (c.units + copies - 1) / copies;
  return std::max(share * c.pixel_cycles, port(c.gmem_bytes)) + kLayerFixed;
}

std::int64_t CostModel::bound(const LayerCost& c, int copies) const {
  return (c.units + copies - 1) / copies * c.mvms_per_unit * mvm_;
}

LayerCost CostModel::conv(const Graph& g, const Node& n, int groups, int cols, int gathering_cus) const {
  const Value& in = g.val(n.in[0]);
  const Value& out = g.val(n.out[0]);
  LayerCost c;
  c.units = out.shape.h * out.shape.w;
  c.mvms_per_unit = groups;
  std::int64_t gather = 0, bytes = 0;
  if (!n.tiles.empty()) {
    // Every distinct input-channel range of the first CU is gathered.
    // plan_memory runs later; the row width only decides which runs merge.
    const std::int64_t wp = in.shape.w + 2 * std::max({n.geom.pt, n.geom.pl, n.geom.pb, n.geom.pr});
    const auto segs = emit::window_segments(n.geom, in.shape.c, wp, n.tiles[0].ci0, n.tiles[0].ci1);
    for (const auto& s : segs) {
      gather += dma(s.len);
      bytes += s.len;
    }
  }
  c.pixel_cycles = gather + groups * mvm_ + 3 * vec(cols) + (cols > 0 ? vec(cols) : 0) + dma(cols) + kPixelFixed;
  // Every CU of a copy gathers its window; the output is written once.
  c.gmem_bytes = c.units * (gathering_cus * bytes + out.shape.c);
  return c;
}

LayerCost CostModel::other(const Graph& g, const Node& n) const {
  const Value& out = g.val(n.out[0]);
  const Value& in = g.val(n.in[0]);
  LayerCost c;
  const std::int64_t C = out.shape.c, W = out.shape.w;
  switch (n.op) {
    case OpKind::MaxPool:
    case OpKind::AveragePool: {
      const std::int64_t k = std::int64_t{n.geom.kh} * n.geom.kw;
      c.units = out.shape.h * W;
      c.pixel_cycles = n.geom.kh * dma(n.geom.kw * C) + vec(k * C) + 2 * vec(C) + dma(C) + kPixelFixed;
      c.gmem_bytes = c.units * (k * C + C);
      break;
    }
    case OpKind::GlobalAveragePool:
      c.units = in.shape.h;
      c.pixel_cycles = dma(in.shape.w * in.shape.c) + vec(in.shape.w * in.shape.c) + vec(in.shape.c) + kPixelFixed;
      c.gmem_bytes = in.shape.numel() + C;
      break;
    case OpKind::Add:
      c.units = out.shape.h;
      c.pixel_cycles = 3 * dma(W * C) + 6 * vec(W * C) + kPixelFixed;
      c.gmem_bytes = 3 * out.shape.numel();
      break;
    case OpKind::Mul:
    case OpKind::Concat:
      c.units = out.shape.h * W;
      c.pixel_cycles = 2 * dma(C) + 2 * vec(C) + kPixelFixed;
      c.gmem_bytes = 2 * out.shape.numel();
      break;
    default:  // Relu, Clip, LeakyRelu
      c.units = out.shape.h;
      c.pixel_cycles = 2 * dma(W * C) + vec(W * C) + kPixelFixed;
      c.gmem_bytes = 2 * out.shape.numel();
      break;
  }
  return c;
}

}  // namespace vp::cc
