// Cost model of the schedule (schedule_cost.h), at the target's timing
// (Target::Timing, the chip's parameters): a read request crosses the mesh to the memory
// (noc.hop_cycles per hop, three hops on average on the 4x4 mesh), waits
// gmem.latency_ns, and its data comes back in noc.link_bits flits; the port
// figure was fitted on ResNet-50's measured per-layer cycles
// (docs/compiler.md, "Schedule"): the Adds reach 6.6 B/cycle, but taking
// the link rate (10.7 B/cycle) as the bound lets the map give port-heavy
// layers more copies, which measured faster (ResNet-50 8.3 M cycles against
// 10.1 M); the estimate is then low where the port is contended.
#include "schedule_cost.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "emit_context.h"
#include "pixel_gather.h"
#include "vp/config/cycles.h"
#include "vp/hw/crossbar/crossbar_config.h"
#include "vp/hw/crossbar/mvm_timing.h"

namespace vp::cc {
namespace {
constexpr int kMeanHops = 3;            // mean XY hops to the memory's router on the 4x4 mesh
constexpr std::int64_t kDmaExtra = 0;   // fitted: arbitration and packet headers
constexpr double kPortLinks = 1.33;     // 10.7 B/cycle: XY routing sends 12 of 16 clusters' responses over one link
constexpr std::int64_t kPixelFixed = 12;   // loop and address arithmetic per pixel
// LayerNormalization per pixel: two loads, muli, addi, srai, sub, addi on the
// scalar unit (about 8 cycles with the multiply) and rsqrt (cu.scalar.rsqrt_cycles).
constexpr std::int64_t kNormScalarCycles = 8 + 11;
// Softmax per run of channels: ldb, sub, addi, dbnz, then ld, muli, three
// addi and dbnz on the scalar unit (about 14 cycles with the loads and the
// multiply) and recip (cu.scalar.recip_cycles).
constexpr std::int64_t kSoftmaxRunCycles = 14 + 14;
constexpr std::int64_t kVmovScalar = 3;    // address arithmetic of one vmov
// A MatMul's head loop around its values: the head's pointers and count.
constexpr std::int64_t kHeadLoop = 5;
constexpr std::int64_t kGatherRunSetup = 3;  // a gather run's addi, addi and li (emit_gather)
constexpr std::int64_t kConcatInputSetup = 9;  // per input of a pixel: its registers (li) and the store's address
constexpr std::int64_t kLayerFixed = 60;   // setup, wait and barrier per layer
// The firmware's part of an inference (firmware/sidra_fw.s, measured in
// the traces of tiny_cnn and ResNet-50): its own bookkeeping, one pass of
// five instructions (ld, ld, cstart, addi, dbnz) per core started, and the
// copies of the inputs and outputs in 4 KiB chunks through its staging
// buffers.
constexpr std::int64_t kInferenceFixed = 100, kStartPerCore = 5;
constexpr std::int64_t kCopyChunk = 4096, kIoRecord = 16;
}  // namespace

CostModel::CostModel(const Target& t, std::int64_t min_strip, bool rows_as_loaded)
    : t_(t), min_strip_(min_strip), rows_as_loaded_(rows_as_loaded) {
  const hw::MvmTiming timing(crossbar_config(t, t.format()), mvm_timing_config(t));
  for (int b = 1; b <= 8; ++b) mvm_bits_[b] = static_cast<std::int64_t>(timing.cycles(b, true));
  mvm_ = mvm_bits_[8];
  // Flits leave the memory's router on its links; with XY routing most
  // responses take one of them.
  port_bytes_per_cycle_ = t.link_bytes_per_cycle() * kPortLinks;
  // Activations in the cluster SRAMs' global window (plan_memory.cpp): their
  // granules are spread over every cluster, so the traffic enters the mesh
  // at every router's local port, and a read waits for an SRAM, not DRAM.
  if (t.sram_global_base > 0) {
    window_ = true;
    port_bytes_per_cycle_ = t.link_bytes_per_cycle() * t.clusters;
  }
}

bool use_line_buffer(const ConvGeom& g, const Shape& in, const Shape& out, std::int64_t spad_bytes,
                     std::int64_t* span) {
  const std::int64_t sp = ((out.w - 1) * g.sw + std::int64_t{g.kw - 1} * g.dw + 1) * in.c;
  if (span) *span = sp;
  if (out.w == 1 && g.kw == in.w + g.pl + g.pr && g.kh > 1) return false;
  if ((sp + 7) / 8 * 8 * g.kh > spad_bytes / 2) return false;
  return sp * g.kh <= out.w * std::int64_t{g.kh} * g.kw * in.c;
}

std::int64_t CostModel::dma(std::int64_t bytes) const {
  const Target::Timing& m = t_.timing;
  const std::int64_t lat = window_ ? m.sram_latency_cycles : m.gmem_latency_cycles();
  return m.dma_setup_cycles + lat +
         m.noc_to_chip(2 * kMeanHops * m.noc_hop_cycles + 4 * m.noc_local_port_cycles + flits(bytes)) + kDmaExtra +
         latency_extra_;
}

double CostModel::route_latency(double hops, double remote) const {
  const Target::Timing& m = t_.timing;
  return (2 * hops * m.noc_hop_cycles + 4 * remote * m.noc_local_port_cycles) * m.chip_clock_mhz / m.noc_clock_mhz;
}

double CostModel::priced_route_latency() const { return route_latency(kMeanHops, 1.0); }

std::int64_t CostModel::start(std::int64_t cores, const std::vector<std::int64_t>& input_bytes,
                             const std::vector<std::int64_t>& output_bytes) const {
  // One DMA of the control processor to or from global memory.
  auto cp_dma = [this](std::int64_t bytes) {
    // The memory's channel moves the bytes before the response packet
    // leaves (gmem.bandwidth_gbps): a 4 KiB read takes 686 cycles, 64 of
    // them the channel's. (A fixed 50 fitted to that read put 50 cycles on
    // every 16-byte record too: the mlp's copies 1.4 times their run.)
    const Target::Timing& m = t_.timing;
    const std::int64_t channel = static_cast<std::int64_t>(
        std::ceil(static_cast<double>(bytes) / (m.gmem_bandwidth_gbps * 1e3 / m.chip_clock_mhz)));
    return m.dma_setup_cycles + m.gmem_latency_cycles() +
           m.noc_to_chip(2 * kMeanHops * m.noc_hop_cycles + 4 * m.noc_local_port_cycles + flits(bytes)) + channel;
  };
  // A binding's record, then the chunks: the reads run two chunks ahead of
  // the writes, so after the first read's latency each chunk costs its
  // flits and header on the control processor's port (ResNet-18's
  // 150,528-byte input: 19.7 k cycles measured, 19.9 k by this). The cores
  // start once the inputs' last write has landed (the firmware waits for
  // it); nothing waits for the outputs' last one.
  auto copy = [&](std::int64_t bytes, bool last_waited) {
    std::int64_t c = cp_dma(kIoRecord);
    for (std::int64_t at = 0; at < bytes; at += kCopyChunk) {
      const std::int64_t n = std::min(kCopyChunk, bytes - at);
      c += at == 0 ? cp_dma(n) : t_.timing.noc_to_chip(flits(n) + t_.timing.noc_packet_header_flits);
      if (at + n >= bytes && last_waited) c += cp_dma(n);
    }
    return c;
  };
  std::int64_t c = kInferenceFixed + kStartPerCore * cores;
  for (std::int64_t b : input_bytes) c += copy(b, true);
  for (std::int64_t b : output_bytes) c += copy(b, false);
  return c;
}

std::int64_t CostModel::start_per_core() { return kStartPerCore; }

std::int64_t CostModel::vec(std::int64_t elems) const {
  const Target::Timing& m = t_.timing;
  return m.vector_startup_cycles + (elems + m.vector_lanes - 1) / m.vector_lanes;
}

std::int64_t CostModel::port(std::int64_t bytes) const {
  return static_cast<std::int64_t>(static_cast<double>(bytes) / port_bytes_per_cycle_);
}

std::int64_t CostModel::dram_port(std::int64_t bytes) const {
  return static_cast<std::int64_t>(static_cast<double>(bytes) /
                                   (t_.link_bytes_per_cycle() * kPortLinks));
}

std::int64_t rows_at_once(const Graph& g, const Node& n) {
  const Shape& o = g.val(n.out[0]).shape;
  const std::int64_t R = n.replicas;
  if (o.h * o.w < kStripRows * o.w * R) return 1;
  const std::int64_t S = std::max<std::int64_t>(1, std::min<std::int64_t>(R, o.w / g.min_strip));
  return std::max<std::int64_t>(1, std::min(o.h, R / S));
}

Share share_of_map(std::int64_t OH, std::int64_t OW, int R, std::int64_t min_strip) {
  Share s;
  if (OH * OW < kStripRows * OW * R) {
    s.pixels = (OH * OW + R - 1) / R;
    s.width = std::min(OW, s.pixels);
    s.rows = (s.pixels + OW - 1) / OW + (s.pixels % OW ? 1 : 0);
    return s;
  }
  const std::int64_t S = std::max<std::int64_t>(1, std::min<std::int64_t>(R, OW / min_strip));
  const std::int64_t G = R / S;
  s.width = (OW + S - 1) / S;
  s.rows = (OH + G - 1) / G;
  s.pixels = s.rows * s.width;
  return s;
}

std::int64_t CostModel::stage(const LayerCost& c, int copies) const {
  // Lanes fire on the pixels of one row of the share at a time.
  const Share sh = share(c, copies, c.row_units);
  const std::int64_t groups = c.lanes == 1 ? sh.pixels : sh.rows * ((sh.width + c.lanes - 1) / c.lanes);
  std::int64_t work = sh.pixels * c.pixel_cycles + groups * c.group_cycles;
  if (c.overlap && c.lanes == 1) {
    // Software-pipelined: per group the crossbars run its MVMs while the
    // vector unit assembles the next group's windows and finishes the group
    // before, so a group takes the longer of the two; each row adds the
    // shorter once (its first MVMs, its last vector work). Counted for one
    // lane only, where the MVM is most of a pixel: counted for lanes too,
    // the copy choice measured worse on tiny_cnn's stream of 16 (12,157
    // cycles per inference against 7,836) and ResNet-18 (559,324 against
    // 511,303), better on MobileNetV2 (1,041,781 against 1,097,925).
    const std::int64_t k = std::min<std::int64_t>(c.lanes, std::max<std::int64_t>(1, sh.width));
    const std::int64_t vec_work = k * (c.fill_cycles + c.vector_cycles);
    work = groups * std::max(c.group_cycles, vec_work) + sh.rows * std::min(c.group_cycles, vec_work);
  }
  // Each row's last store is waited for before its readers hear of the
  // row (emit_sync's row end); the others go out under the next unit.
  if (!c.stores_in_stage && c.store_behind > 0) {
    const std::int64_t rows = share(c, copies, c.map_width > 0 ? c.map_width : c.row_units).rows;
    work -= std::max<std::int64_t>(0, sh.pixels - std::max<std::int64_t>(1, rows)) * c.store_behind;
  }
  std::int64_t rows = sh.rows * c.row_cycles;
  if (c.line_kh > 0 && c.line_in_stage) {
    const std::int64_t load = dma((sh.width - 1) * c.span_per_pixel + c.span_fixed);
    rows = line_rows_loaded(c, copies, sh) * load;
    if (c.ahead_in_stage && sh.rows > 1) {
      // The first row's kh rows before the loop, every later row's under
      // the row before; a grouped Add's residual rows with them.
      const std::int64_t first = std::min(rows, c.line_kh * load);
      std::int64_t later = rows - first;
      if (c.residual_cols > 0 && c.lanes > 1 && c.all_channels) {
        work -= sh.pixels * dma(c.residual_cols);
        later += sh.rows * dma(sh.width * c.residual_cols);
      }
      return std::max(first + std::max(work, later), port(c.gmem_bytes)) + kLayerFixed;
    }
  }
  return std::max(work + rows, port(c.gmem_bytes)) + kLayerFixed;
}

// Rows a share's line buffer loads: kh for its first row, then sh for each
// next one when the share walks consecutive rows (strips of whole rows, one
// copy per strip) and windows overlap, else kh again (line_rows).
std::int64_t CostModel::line_rows_loaded(const LayerCost& c, int copies, const Share& sh) const {
  const std::int64_t H = c.units / c.row_units, W = c.row_units;
  const bool strips = H * W >= kStripRows * W * copies;
  const std::int64_t S = strips ? std::max<std::int64_t>(1, std::min<std::int64_t>(copies, W / min_strip_)) : 1;
  const bool consecutive = strips && copies / S == 1 && c.line_sh < c.line_kh;
  return c.line_kh + (sh.rows - 1) * (consecutive ? c.line_sh : c.line_kh);
}

std::vector<ShareRun> share_runs(std::int64_t OH, std::int64_t OW, int r, int R, std::int64_t min_strip) {
  std::vector<ShareRun> runs;
  const auto add = [&](std::int64_t h, std::int64_t w, std::int64_t rows, std::int64_t cols, std::int64_t hstep) {
    if (rows > 0 && cols > 0) runs.push_back({h, w, rows, cols, hstep});
  };
  if (OH * OW < kStripRows * OW * R) {
    const std::int64_t P = OH * OW, i0 = P * r / R, i1 = P * (r + 1) / R;
    std::int64_t h0 = i0 / OW;
    const std::int64_t w0 = i0 % OW, h1 = i1 / OW, w1 = i1 % OW;
    if (h0 == h1) {
      add(h0, w0, 1, w1 - w0, 1);
      return runs;
    }
    if (w0 > 0) {
      add(h0, w0, 1, OW - w0, 1);
      ++h0;
    }
    add(h0, 0, h1 - h0, OW, 1);
    add(h1, 0, 1, w1, 1);
    return runs;
  }
  const std::int64_t S = std::max<std::int64_t>(1, std::min<std::int64_t>(R, OW / min_strip));
  const std::int64_t groups = R / S, strip = r % S, group = r / S;
  if (group >= groups) return runs;
  const std::int64_t w0 = OW * strip / S, w1 = OW * (strip + 1) / S;
  add(group, w0, (OH - group + groups - 1) / groups, w1 - w0, groups);
  return runs;
}

std::int64_t CostModel::memory(const LayerCost& c, int copies) const {
  if (c.line_kh <= 0 || c.line_readers <= 0) return c.moved_bytes >= 0 ? c.moved_bytes : c.gmem_bytes;
  // Each copy's runs as share_loop walks them; line_rows loads kh rows of a
  // run's span for its first row and sh for each next one when the rows
  // are consecutive and windows overlap.
  const std::int64_t OH = c.units / c.row_units, OW = c.row_units;
  const int R = std::max(1, copies);
  std::int64_t rows_bytes = 0;
  for (int r = 0; r < R; ++r)
    for (const ShareRun& run : share_runs(OH, OW, r, R, min_strip_)) {
      const std::int64_t span = (run.cols - 1) * c.span_per_pixel + c.span_fixed;
      const bool keep = run.hstep == 1 && run.rows >= 2 && c.line_sh < c.line_kh;
      rows_bytes += (c.line_kh + (run.rows - 1) * (keep ? c.line_sh : c.line_kh)) * span;
    }
  return c.line_readers * rows_bytes + c.other_bytes;
}

Packets CostModel::packets(const LayerCost& c, int copies) const {
  const Share sh = share(c, copies, c.row_units);
  const std::int64_t groups = c.lanes == 1 ? sh.pixels : sh.rows * ((sh.width + c.lanes - 1) / c.lanes);
  Packets p;
  const auto add = [&](double count, std::int64_t bytes) {
    if (count <= 0 || bytes <= 0) return;
    const double f = static_cast<double>(t_.timing.noc_packet_header_flits + flits(bytes));
    p.count += count;
    p.bytes += count * static_cast<double>(bytes);
    p.flits += count * f;
    p.flits_sq += count * f * f;
  };
  for (std::int64_t b : c.unit_dmas) add(static_cast<double>(sh.pixels), b);
  if (c.lanes > 1 && c.all_channels)  // emit_conv's grouped lanes: one DMA a group
    add(static_cast<double>(groups * c.stores_per_pixel), c.lanes * c.store_cols);
  else
    add(static_cast<double>(sh.pixels * c.stores_per_pixel), c.store_cols);
  if (c.line_kh > 0)
    add(static_cast<double>(line_rows_loaded(c, copies, sh)), (sh.width - 1) * c.span_per_pixel + c.span_fixed);
  if (p.count > 0) {
    p.flits /= p.count;
    p.flits_sq /= p.count;
    p.bytes /= p.count;
  }
  return p;
}

void CostModel::price(Node& n, const LayerCost& c, int copies, bool with_bound) const {
  n.stage_cycles = stage(c, copies);
  n.memory_bytes = memory(c, copies);
  n.step_cycles = map_row_step(c, copies, n.stage_cycles);
  n.bound_cycles = with_bound ? bound(c, copies) : 0;
  n.loaded_stage_cycles = loaded_stage(c, copies);
  n.rows_ahead = c.ahead && c.line_kh > 0 && share(c, copies, c.row_units).rows > 1;
  n.loaded_step_cycles = map_row_step(c, copies, n.loaded_stage_cycles);
  n.path_latencies = 0;
  if (!c.longer_latency.empty()) {
    // The copy choice's changes to the layer (lanes, the software pipeline)
    // carried over to its twin.
    LayerCost s = c.longer_latency.front();
    s.lanes = c.lanes;
    s.overlap = c.overlap;
    n.path_latencies =
        static_cast<double>(probe().loaded_stage(s, copies) - n.loaded_stage_cycles) / static_cast<double>(kLatencyProbe);
  }
  const Packets p = packets(c, copies);
  n.dma_packets = p.count;
  n.packet_flits = p.flits;
  n.packet_flits_sq = p.flits_sq;
  n.packet_bytes = p.bytes;
}

std::int64_t CostModel::step(const LayerCost& c, int copies) const {
  const Share sh = share(c, copies, c.row_units);
  return stage(c, copies) / std::max<std::int64_t>(1, sh.rows);
}

std::int64_t CostModel::map_row_step(const LayerCost& c, int copies, std::int64_t st) const {
  const Share sh = share(c, copies, c.map_width > 0 ? c.map_width : c.row_units);
  return st / std::max<std::int64_t>(1, sh.rows);
}

Share CostModel::share(const LayerCost& c, int copies, std::int64_t width) const {
  if (c.windows <= 1) return share_of_map(c.units / width, width, copies, min_strip_);
  // Whole windows per core (rows of one pixel: a transformer's tokens), a
  // group of the heads each: as a share of all heads' work, a core computes
  // ceil(windows / sharers) windows' rows over head_groups.
  const std::int64_t groups = std::max(1, c.head_groups), sharers = std::max<std::int64_t>(1, copies / groups);
  const std::int64_t per = c.units / c.windows, mine = (c.windows + sharers - 1) / sharers * per;
  Share sh;
  sh.rows = mine;
  sh.width = 1;
  sh.pixels = (mine + groups - 1) / groups;
  return sh;
}

std::int64_t CostModel::bound(const LayerCost& c, int copies) const {
  const std::int64_t at_once = std::int64_t{copies} * c.lanes;
  return (c.units + at_once - 1) / at_once * c.mvms_per_unit * (c.mvm ? c.mvm : mvm_);
}

LayerCost CostModel::conv(const Graph& g, const Node& n, int groups, int cols, int gathering_cus) const {
  const Value& in = g.val(n.in[0]);
  const Value& out = g.val(n.out[0]);
  LayerCost c;
  c.units = out.shape.h * out.shape.w;
  c.row_units = out.shape.w;
  c.mvms_per_unit = groups * n.reads;
  const std::int64_t C = in.shape.c;
  const std::int64_t width = n.tiles.empty() ? C : n.tiles[0].ci1 - n.tiles[0].ci0;
  // plan_memory runs later; the row width only decides which runs merge.
  const std::int64_t wp = in.shape.w + 2 * std::max({n.geom.pt, n.geom.pl, n.geom.pb, n.geom.pr});
  const auto segs = emit::window_segments(n.geom, C, wp * C, 0, static_cast<int>(width));
  const std::int64_t window = std::int64_t{n.geom.kh} * n.geom.kw * width;
  std::int64_t fill = 0, span = 0;
  const bool line = use_line_buffer(n.geom, in.shape, out.shape, t_.spad_bytes, &span);
  std::int64_t bytes_per_unit = 0, bytes_per_row = 0;
  if (line) {
    // Runs of the window in the buffer: kh of kw*C when whole channels are read.
    const std::int64_t runs = width == C && n.geom.dw == 1 ? n.geom.kh : std::int64_t{n.geom.kh} * n.geom.kw;
    fill = runs * (kVmovScalar + vec(window / runs));
    c.row_cycles = n.geom.kh * dma(span);
    bytes_per_row = n.geom.kh * span;
    c.line_kh = n.geom.kh;
    c.line_sh = n.geom.dh == 1 ? n.geom.sh : n.geom.kh;
    c.span_fixed = (std::int64_t{n.geom.kw - 1} * n.geom.dw + 1) * C;
    c.span_per_pixel = std::int64_t{n.geom.sw} * C;
    c.line_in_stage = rows_as_loaded_;
    c.line_readers = gathering_cus;
    c.ahead = g.rows_ahead && gathering_cus == 1;
  } else {
    for (const auto& s : segs) {
      fill += dma(s.len);
      c.unit_dmas.push_back(s.len);
    }
    bytes_per_unit = window;
  }
  c.store_cols = cols;
  const Node* residual = fused_residual(g, n);
  c.stores_per_pixel = residual ? 2 : 1;
  c.all_channels = cols == out.shape.c;
  // Redundant copies of the rows (redundancy.cpp): the patch repeated, one
  // vmov each; their MVMs fire with the first copy's.
  const std::int64_t once = (window + t_.rows - 1) / t_.rows * t_.rows;
  fill += (n.redundancy - 1) * (kVmovScalar + vec(once));
  // Fewer input bits (input_bits.cpp): the window rounded and clamped
  // (vsra, vclamp), each MVM that many DAC steps.
  if (n.input_bits < 8) fill += 2 * (kVmovScalar + vec(once));
  c.mvm = mvm_bits_[std::clamp(n.input_bits, 1, 8)];
  c.pixel_cycles = fill + 3 * vec(cols) + kPixelFixed;
  c.group_cycles = groups * n.reads * c.mvm;
  c.fill_cycles = fill;
  c.vector_cycles = 3 * vec(cols) + kPixelFixed;
  // A fused residual Add: the other input's channels come in per pixel. A
  // fused table activation: one vlut of the pixel's channels.
  if (residual) {
    c.residual_cols = cols;
    c.pixel_cycles += dma(cols) + 6 * vec(cols);
    c.vector_cycles += 6 * vec(cols);
  } else if (n.fused_next >= 0) {
    const Target::Timing& m = t_.timing;
    const std::int64_t groups_of_lanes = (cols + m.vector_lanes - 1) / m.vector_lanes;
    const std::int64_t lut = m.vector_startup_cycles + groups_of_lanes * m.vector_lut_cycles_per_group;
    c.pixel_cycles += lut;
    c.vector_cycles += lut;
  }
  // Every CU of a copy reads its window (or rows); the output is written once.
  c.other_bytes = c.units * out.shape.c * (residual ? 2 : 1);
  c.gmem_bytes = gathering_cus * (c.units * bytes_per_unit + out.shape.h * bytes_per_row) + c.other_bytes;
  // A grouped Conv's gathers read only the input channels of the CU's own
  // output columns (ConvNeXt's 7x7 depthwise Convs on 2x2 maps: 12 CUs, each
  // 64 of the 768 channels; counted whole, 1.8 MB where 154 KB move).
  if (!line && n.geom.group > 1 && out.shape.c > 0) {
    const std::int64_t own = std::int64_t{n.geom.kh} * n.geom.kw * std::min(C, (cols * C + out.shape.c - 1) / out.shape.c);
    c.moved_bytes = gathering_cus * c.units * std::min(own, bytes_per_unit) + c.other_bytes;
  }
  if (latency_extra_ == 0) c.longer_latency.push_back(probe().conv(g, n, groups, cols, gathering_cus));
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
      c.row_units = W;
      std::int64_t span = 0;
      if (use_line_buffer(n.geom, in.shape, out.shape, t_.spad_bytes, &span)) {  // as emit_pool
        c.pixel_cycles = n.geom.kh * (kVmovScalar + vec(n.geom.kw * C)) + vec(k * C) + vec(C) + kPixelFixed;
        c.line_kh = n.geom.kh;
        c.line_sh = n.geom.dh == 1 ? n.geom.sh : n.geom.kh;
        c.span_fixed = (std::int64_t{n.geom.kw - 1} * n.geom.dw + 1) * C;
        c.span_per_pixel = std::int64_t{n.geom.sw} * C;
        c.line_readers = 1;
        c.ahead = g.rows_ahead;
        c.unit_dmas = {C};
        c.other_bytes = c.units * C;
        c.gmem_bytes = out.shape.h * n.geom.kh * span + c.other_bytes;
      } else {
        c.pixel_cycles = n.geom.kh * dma(n.geom.kw * C) + vec(k * C) + vec(C) + kPixelFixed;
        c.unit_dmas.assign(static_cast<std::size_t>(n.geom.kh), n.geom.kw * C);
        c.unit_dmas.push_back(C);
        c.gmem_bytes = c.units * (k * C + C);
      }
      break;
    }
    case OpKind::GlobalAveragePool:
      c.units = in.shape.h;
      c.pixel_cycles = dma(in.shape.w * in.shape.c) + vec(in.shape.w * in.shape.c) + vec(in.shape.c) + kPixelFixed;
      c.unit_dmas = {in.shape.w * in.shape.c};
      c.gmem_bytes = in.shape.numel() + C;
      break;
    case OpKind::Add:
      c.units = out.shape.h;
      c.pixel_cycles = 3 * dma(W * C) + 6 * vec(W * C) + kPixelFixed;
      c.unit_dmas.assign(3, W * C);
      c.gmem_bytes = 3 * out.shape.numel();
      break;
    case OpKind::Mul:
      c.units = out.shape.h * W;
      c.map_width = W;
      if (!g.val(n.in[1]).is_const && !(g.val(n.in[1]).shape == in.shape)) {
        // A gate (emit_mul): the vector comes in and is widened once a row.
        c.pixel_cycles = 2 * dma(C) + 3 * vec(C) + kPixelFixed + (dma(C) + vec(C)) / std::max<std::int64_t>(1, W);
        c.unit_dmas.assign(2, C);
        c.gmem_bytes = 2 * out.shape.numel() + out.shape.h * C;
        break;
      }
      if (!g.val(n.in[1]).is_const) {  // of two activations (emit_mul)
        c.pixel_cycles = 3 * dma(C) + 4 * vec(C) + kPixelFixed;
        c.unit_dmas.assign(3, C);
        c.gmem_bytes = 3 * out.shape.numel();
        break;
      }
      c.pixel_cycles = 2 * dma(C) + 2 * vec(C) + kPixelFixed;
      c.unit_dmas.assign(2, C);
      c.gmem_bytes = 2 * out.shape.numel();
      break;
    case OpKind::LayerNormalization:  // emit_norm.cpp: 9 vector operations over C, 8 scalar and rsqrt
      c.units = out.shape.h * W;
      c.map_width = W;
      c.pixel_cycles = 2 * dma(C) + 9 * vec(C) + kNormScalarCycles + kPixelFixed;
      c.store_behind = dma(C);
      c.unit_dmas.assign(2, C);
      c.gmem_bytes = 2 * out.shape.numel();
      break;
    case OpKind::MatMul: {  // emit_matmul.cpp: per row, N x (1 + heads) or heads x K x 2 vector operations
      const std::int64_t h = n.heads, CA = in.shape.c, K = CA / h, N = C / h;
      // Beside a causal Softmax row m takes B's rows 0..m: (rows + 1) / 2 on
      // average, rounded up.
      const std::int64_t keys = n.causal ? (N + 2) / 2 : N, values = n.causal ? (K + 2) / 2 : K;
      c.units = out.shape.h * W;
      c.map_width = W;
      // B held as int8 codes, widened at each use (emit_matmul_head_groups:
      // inside windows, or too large as int32): one more vector operation
      // per key or value.
      const bool widen = matmul_b_as_int8(g, n, t_);
      // The core issues in order, one instruction a cycle; a vector
      // operation waits for the one before it, and the scalar instructions
      // after it issue while it runs. Per key (trans_b): [vwiden], vmul,
      // then per head a vpsum and three scalar instructions, at least 4
      // cycles, the last head also the key loop's three. Per value: ldb
      // (2 cycles; the vmuls needs its code, a vwiden does not), [vwiden],
      // vmuls, vadd and three scalar instructions under the vadd. Against
      // the traces: swin_tiny's windowed keys 18 cycles (2 heads of 16),
      // its values 11; vit_tiny's keys 23 (4 heads of 17), its values 9.
      const std::int64_t vk = vec(K), vn = vec(N), va = vec(CA);
      const std::int64_t per_key =
          (widen ? va : 0) + std::max<std::int64_t>(va, 4) + (h - 1) * std::max<std::int64_t>(vk, 4) +
          std::max<std::int64_t>(vk, 7);
      const std::int64_t per_value = (widen ? 1 + 2 * vn : 2 + vn) + std::max<std::int64_t>(vn, 3) + 1;
      c.pixel_cycles = 2 * dma(C) + vec(C) +
                       (n.trans_b ? vec(CA) + keys * per_key : vec(C) + h * (values * per_value + kHeadLoop));
      c.row_cycles = 0;
      c.unit_dmas.assign(2, C);
      c.store_behind = dma(C);
      c.gmem_bytes = 2 * out.shape.numel() + g.val(n.in[1]).shape.numel();
      if (n.windows > 1) {
        c.windows = n.windows;
        c.head_groups = std::max(1, matmul_head_groups(g, n, t_));
      }
      break;
    }
    case OpKind::Softmax: {  // emit_softmax.cpp: 4 vector operations over C (6 with a mask), 3 per run
      const std::int64_t G = n.group > 0 ? n.group : C, runs = C / std::max<std::int64_t>(1, G);
      c.units = out.shape.h * W;
      c.map_width = W;
      const bool mask_in = n.in.size() > 1;  // a mask map read beside the scores
      c.pixel_cycles = (mask_in ? 3 : 2) * dma(C) + (n.causal || mask_in ? 6 : 4) * vec(C) +
                       runs * (3 * vec(G) + kSoftmaxRunCycles) + kPixelFixed;
      c.unit_dmas.assign(mask_in ? 3 : 2, C);
      c.store_behind = dma(C);
      c.gmem_bytes = (mask_in ? 3 : 2) * out.shape.numel();
      break;
    }
    case OpKind::Concat:
      if (!n.gather.empty()) {  // emit_gather: DMAs in and out, per run of pixels
        // Each run of consecutive input pixels is one load and one store,
        // the store after the load (it copies the load's bytes): a patch
        // merging's strided pixels are a run each (swin_layout's merge:
        // 16 a row of 4 output pixels, where one DMA each way was priced).
        const std::int64_t rows = std::max<std::int64_t>(1, out.shape.h);
        const std::int64_t per_row = static_cast<std::int64_t>(n.gather.size()) / rows;
        std::int64_t runs = 0, cycles = 0;
        for (std::int64_t h = 0; h < rows; ++h)
          for (const GatherRun& r : gather_runs(n, h * per_row, (h + 1) * per_row, in.shape.w, in.buf.pad != 0,
                                                std::numeric_limits<std::int64_t>::max())) {
            ++runs;
            cycles += 2 * dma(r.len * in.shape.c) + kGatherRunSetup;
          }
        c.units = out.shape.h;
        // The copy choice keeps one DMA each way a row: priced by its runs,
        // swin_layout's merge (4 rows) became its slowest stage, the layers
        // around it took fewer copies to match its pace, and the run at
        // batch 1 was 5 % slower (28,251 cycles against 26,957).
        c.pixel_cycles = 2 * dma(W * C) + kPixelFixed;
        c.loaded_pixel_cycles = (cycles + rows - 1) / rows + kPixelFixed;
        const std::int64_t row_runs = std::max<std::int64_t>(1, (runs + rows - 1) / rows);
        c.unit_dmas.assign(static_cast<std::size_t>(2 * row_runs), std::max<std::int64_t>(1, W * C / row_runs));
        c.gmem_bytes = 2 * out.shape.numel();
        break;
      }
      c.units = out.shape.h * W;
      c.map_width = W;
      c.gmem_bytes = 2 * out.shape.numel();
      if (n.in.size() < 8) {  // emit_concat_pixels: the inputs' loads at once, then each one's vector work
        std::int64_t widest = 0, each = 0;
        for (int v : n.in) {
          widest = std::max(widest, g.val(v).shape.c);
          each += kConcatInputSetup + 2 * vec(g.val(v).shape.c);
          c.unit_dmas.push_back(g.val(v).shape.c);
        }
        c.unit_dmas.push_back(C);
        c.pixel_cycles = dma(widest) + each + kPixelFixed;
        break;
      }
      c.pixel_cycles = 2 * dma(C) + 2 * vec(C) + kPixelFixed;
      c.unit_dmas.assign(2, C);
      break;
    default:  // Relu, Clip, LeakyRelu
      c.units = out.shape.h;
      c.pixel_cycles = 2 * dma(W * C) + vec(W * C) + kPixelFixed;
      c.unit_dmas.assign(2, W * C);
      c.gmem_bytes = 2 * out.shape.numel();
      break;
  }
  if (latency_extra_ == 0) c.longer_latency.push_back(probe().other(g, n));
  return c;
}

}  // namespace vp::cc
