// Waits at busy links and ports in the report's estimate (contended_times.h).
#include "contended_times.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "energy_estimate.h"
#include "vp/cc/mesh_load.h"
#include "vp/cc/passes.h"
#include "vp/config/cycles.h"

namespace vp::cc {
namespace {

// A resource's load is held below kMaxBusy: past it the period is bounded
// by the resource's flits (report.cpp's mesh and port terms), not by waits.
constexpr double kMaxBusy = 0.9;
// Passes of the one-inference iteration: the prices move by under 0.1 %
// after about ten on the tested models.
constexpr int kPasses = 16;
// A row hand-over token: a header and its 4-byte word. About half of a
// core's messages (Node::sync_tokens counts both) are its sends.
constexpr double kTokenFlits = 2, kSendShare = 0.5;
// A link takes each packet into the first gap that holds it, so a short
// packet slips in where a long one waits. The waits of all packets still
// add up to the queue's (the conservation law: the flits-weighted mean
// wait is the first-come one's); how they split by size is fitted: on
// ConvNeXt's stream 13-flit packets waited 80 cycles and 769-flit ones 350,
// about the cube root of the size.
constexpr double kSizeExponent = 1.0 / 3;
// Arrivals burstier than random (a layer's CUs start their row loads at
// the same token) wait longer than Pollaczek-Khinchine's: Kingman's factor
// (c_a^2 + c_s^2) / 2 over (1 + c_s^2) / 2. Fitted on the nineteen runs of
// docs/compiler.md's table ("Cost model"), with a packet waiting behind
// the flits of its route's other inputs only (behind()): 1.7 and 1.8 put
// all nineteen within 10 %, 1.6 and 2.0 one out (ResNet-18's stream,
// ResNet-50's). It was 1.1 while a packet waited at each hop behind all
// the hop's flits: the two overstatements had cancelled in part.
constexpr double kBurst = 1.7;

// What every node's flits add at one resource: their sum, the sum weighted
// by packet size (E[S^2] / E[S] per node: the residual's numerator) and by
// the size's power (the split of the waits by size).
struct Load {
  double flits = 0, sized = 0, powered = 0;
  std::array<double, kMeshInputs> entering{};  // the flits by the input they came from

  // this += k * o
  void add(const Load& o, double k) {
    flits += k * o.flits;
    sized += k * o.sized;
    powered += k * o.powered;
    for (std::size_t i = 0; i < entering.size(); ++i) entering[i] += k * o.entering[i];
  }
};

// Flits that came in over the same input as a packet were let out one
// after the other by it, so the packet does not queue behind them: the
// platform reserves a packet's links in turn (docs/noc.md), and one that
// left the input before it leaves the next link before it arrives, unless
// it waited there behind others. A packet on a resource waits behind the
// flits of its other inputs, at the queue's whole load: the share of the
// load it queues behind, by its own flits on the resource's inputs.
// (Summed link by link at the whole load, a packet of ResNet-50's stream
// waited at each of its 2.5 hops as if the flits that had just crossed
// the hop before with it were new: the stream's estimate was 1.11 of the
// run.)
double behind(const Load& at, const std::vector<double>& own, std::size_t r) {
  double all = 0, others = 0;
  for (int k = 0; k < kMeshInputs; ++k) {
    const double f = own[r * kMeshInputs + static_cast<std::size_t>(k)];
    if (f <= 0) continue;
    all += f;
    others += f * (k == kFirstHop ? at.flits : at.flits - at.entering[static_cast<std::size_t>(k)]);
  }
  return all > 0 && at.flits > 0 ? std::max(0.0, others / (all * at.flits)) : 1.0;
}

class Waits {
 public:
  Waits(const Graph& g, const Target& t)
      : g_(g), entering_(node_traffic_entering(g, t)), noc_cycle_(t.timing.chip_clock_mhz / t.timing.noc_clock_mhz) {
    for (const auto& e : entering_) {
      flits_.emplace_back(e.size() / kMeshInputs, 0.0);
      for (std::size_t k = 0; k < e.size(); ++k) flits_.back()[k / kMeshInputs] += e[k];
    }
    for (const auto& f : flits_) resources_ = std::max(resources_, f.size());
    // The stages price every DMA at the SRAMs' latency when activations
    // live in their window (schedule_cost.cpp); a value plan_memory left in
    // global memory proper (swin_layout's 3 KB input, read by 64 copies of
    // its patch embedding in 12-byte rows) answers after gmem.latency_ns.
    const double dram_more =
        t.sram_global_base > 0
            ? static_cast<double>(t.timing.gmem_latency_cycles()) - t.timing.sram_latency_cycles
            : 0.0;
    // The stages also price every DMA's route at the mean hops to the
    // memory's corner, through four ports (CostModel::dma). The placement
    // gives each node its own: the mean hops of its bytes (a value in the
    // window spreads over the clusters, so a core in the mesh's middle is
    // nearer most of it) and the share that leaves its cluster (a small
    // value may sit in the reader's own SRAM: swin_tiny's LayerNorms load
    // their 32-byte pixels in 7 cycles where the price had 26). Each DMA
    // latency the node's stage waits out one after the other
    // (Node::path_latencies) moves by the difference.
    const CostModel cm(t, g.min_strip);
    const double priced = cm.priced_route_latency();
    const std::size_t links = 4u * static_cast<std::size_t>(t.clusters);
    const double link_bytes = t.noc_link_bits / 8.0;
    for (const Node& n : g.nodes) {
      const MemoryBytes b = n.fused ? MemoryBytes{} : memory_bytes_of(g, n, t);
      const double all = static_cast<double>(b.window + b.dram);
      dram_.push_back(all > 0 ? n.dma_packets * dram_more * static_cast<double>(b.dram) / all : 0.0);
      const std::size_t k = dram_.size() - 1;
      if (all > 0 && k < flits_.size() && flits_[k].size() > links) {
        double hop_flits = 0, port_flits = 0;
        for (std::size_t r = 0; r < flits_[k].size(); ++r) (r < links ? hop_flits : port_flits) += flits_[k][r];
        const double moved = all / link_bytes;
        const double route = cm.route_latency(hop_flits / moved, std::min(1.0, port_flits / (2 * moved)));
        dram_[k] += n.path_latencies * (route - priced);
      }
      const bool known = n.dma_packets > 0 && n.packet_flits > 0;
      // mesh_load counts a node's bytes in flits of noc.link_bits; its
      // packets also carry their headers and round up (12-byte rows: 3
      // flits for 1.5).
      const std::size_t i = own_.size();
      if (known && n.packet_bytes > 0 && i < flits_.size()) {
        const double headers = n.packet_flits * (t.noc_link_bits / 8.0) / n.packet_bytes;
        for (double& f : flits_[i]) f *= headers;
        for (double& f : entering_[i]) f *= headers;
      }
      own_.push_back(known ? n.packet_flits : 1.0);
      sized_.push_back(known ? n.packet_flits_sq / n.packet_flits : 1.0);
      powered_.push_back(std::pow(own_.back(), kSizeExponent));
    }
  }

  std::size_t resources() const { return resources_; }
  bool moves(std::size_t i) const { return !flits_[i].empty() && !g_.nodes[i].cores.empty(); }
  double flits(std::size_t j, std::size_t r) const { return flits_[j].empty() ? 0.0 : flits_[j][r]; }

  // Node j's flits on r, scaled by `part`, added to `l`.
  void add(Load& l, std::size_t j, std::size_t r, double part) const {
    const double f = flits(j, r) * part;
    l.flits += f;
    l.sized += f * sized_[j];
    l.powered += f * powered_[j];
    if (f > 0)
      for (std::size_t k = 0; k < kMeshInputs; ++k) l.entering[k] += entering_[j][r * kMeshInputs + k] * part;
  }

  // What one core of node i waits when resource r carries `at(r)` over
  // `span` cycles: each of its packets and tokens on r waits
  // rho / (1 - rho) residuals, the residual E[S^2] / (2 E[S]) of the
  // flits there, shared out by size. A resource loaded past kMaxBusy in
  // that time stretches it until it is not (tiny_cnn's stem: 147 copies
  // reading one small input through the few SRAM ports that hold it).
  template <class At>
  double of(std::size_t i, double span, At at) const {
    if (!moves(i) || span <= 0) return 0;
    const Node& n = g_.nodes[i];
    const double tokens_per_packet =
        n.dma_packets > 0 ? kSendShare * static_cast<double>(n.sync_tokens) / n.dma_packets : 0.0;
    double wait = 0, stretch = 0;
    for (std::size_t r = 0; r < flits_[i].size(); ++r) {
      if (flits_[i][r] <= 0) continue;
      const Load& l = at(r);
      if (l.flits <= 0) continue;
      // (A layer whose copies each compute a row step or two was stretched
      // by its whole burst of loads here, which stood in for the second step
      // of a copy whose block spans two rows; row_times counts that step.)
      stretch = std::max(stretch, l.flits * noc_cycle_ / kMaxBusy - span);
      const double rho = std::min(l.flits * noc_cycle_ / span, kMaxBusy);
      const double residual = l.sized / (2 * l.flits), mean_power = l.powered / l.flits;
      const auto by_size = [&](double s) { return residual * std::pow(s, kSizeExponent) / mean_power; };
      const double packets = flits_[i][r] / own_[i] / static_cast<double>(n.cores.size());
      wait += kBurst * rho * behind(l, entering_[i], r) / (1 - rho) * packets *
              (by_size(own_[i]) + tokens_per_packet * by_size(kTokenFlits)) * noc_cycle_;
    }
    return wait + stretch + dram_[i];
  }

 private:
  const Graph& g_;
  std::vector<std::vector<double>> entering_, flits_;
  std::vector<double> own_, sized_, powered_, dram_;
  std::size_t resources_ = 0;
  // A flit holds a link or port one NoC cycle: this many chip cycles.
  double noc_cycle_ = 1.0;
};

// A graph input that a pad layer copies (emit_input_copy: up to 16 of its
// readers' cores, rows dealt in turn) exists row by row at the copy's pace:
// each row is read from the host's bytes in global memory, whose router's
// port carries every row once (twice when the bordered buffer is in global
// memory too), and each core reads and writes its rows one DMA after the
// other. Counted as there from the start, ResNet-18's and MobileNetV3's
// stems looked done in half the time they took (their last rows wait for
// the 150 KB image to cross that port: 26 k cycles on MobileNetV3).
std::vector<double> pad_row_steps(const Graph& g, const Target& t) {
  std::vector<double> steps(g.values.size(), 0.0);
  const CostModel cm(t, g.min_strip);
  const double link_bytes = t.link_bytes_per_cycle();
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    const Value& v = g.val(g.inputs[i]);
    if (i >= g.input_plain.size() || g.input_plain[i] == v.buf.addr || v.shape.h <= 0) continue;
    const std::int64_t row = v.shape.w * v.shape.c;
    const bool in_window = t.sram_global_base > 0 && v.buf.addr >= t.sram_global_base;
    const double port =
        (in_window ? 1.0 : 2.0) *
        (static_cast<double>(row) / link_bytes +
         t.timing.noc_packet_header_flits * t.timing.chip_clock_mhz / t.timing.noc_clock_mhz);
    const double cores = static_cast<double>(std::min<std::int64_t>(16, v.shape.h));
    steps[static_cast<std::size_t>(g.inputs[i])] = std::max(port, 2.0 * static_cast<double>(cm.dma(row)) / cores);
  }
  return steps;
}

}  // namespace

StagePrices loaded_prices(const Graph& g) {
  StagePrices p;
  for (const Node& n : g.nodes) {
    const double tokens = static_cast<double>(kTokenCycles * n.sync_tokens);
    const bool loaded = n.loaded_stage_cycles > 0;
    const double stage = static_cast<double>(loaded ? n.loaded_stage_cycles : n.stage_cycles);
    const double step = static_cast<double>(loaded ? n.loaded_step_cycles : n.step_cycles);
    p.stage.push_back(stage + tokens);
    p.step.push_back(stage > 0 ? step * (stage + tokens) / stage : step);
  }
  return p;
}

Contended contended_times(const Graph& g, const Target& t) {
  Contended c;
  StagePrices base = loaded_prices(g);
  base.input_step = pad_row_steps(g, t);
  for (const Node& n : g.nodes) {
    const int groups = n.op == OpKind::MatMul && n.windows > 1 ? std::max(1, matmul_head_groups(g, n, t)) : 0;
    base.window_sharers.push_back(groups ? std::max(1, n.replicas / groups) : 0);
  }
  c.prices = base;
  const Waits waits(g, t);
  const std::size_t N = g.nodes.size(), Rn = waits.resources();
  for (int pass = 0; pass < kPasses; ++pass) {
    c.rt = row_times(g, c.prices);
    // Each node's flits spread evenly over its busy time, [first row - step,
    // last row]; what falls inside another node's is the difference of the
    // cumulative loads at its ends, swept once per resource over the ends
    // in time order.
    std::vector<double> from(N), to(N);
    std::vector<std::pair<double, std::size_t>> ends;  // (time, node * 2 + 0 for its start, 1 for its end)
    for (std::size_t j = 0; j < N; ++j) {
      from[j] = c.rt.first[j] - c.prices.step[j];
      to[j] = std::max(c.rt.last[j], from[j] + 1);
      if (!waits.moves(j)) continue;
      ends.emplace_back(from[j], 2 * j);
      ends.emplace_back(to[j], 2 * j + 1);
    }
    std::sort(ends.begin(), ends.end());
    std::vector<std::vector<Load>> at_start(N, std::vector<Load>(Rn)), at_end = at_start;
    for (std::size_t r = 0; r < Rn; ++r) {
      Load cum, rate;  // the cumulative load so far and its rate per cycle
      double now = ends.empty() ? 0.0 : ends.front().first;
      for (const auto& [time, e] : ends) {
        const double dt = time - now;
        cum.add(rate, dt);
        now = time;
        const std::size_t j = e / 2;
        (e % 2 ? at_end : at_start)[j][r] = cum;
        Load per_cycle;
        waits.add(per_cycle, j, r, 1.0 / (to[j] - from[j]));
        const double sign = e % 2 ? -1.0 : 1.0;
        rate.add(per_cycle, sign);
      }
    }
    StagePrices next = base;
    for (std::size_t i = 0; i < N; ++i) {
      if (!waits.moves(i)) continue;
      Load in;
      const double wait = waits.of(i, to[i] - from[i], [&](std::size_t r) -> const Load& {
        const Load &a = at_start[i][r], &b = at_end[i][r];
        in = b;
        in.add(a, -1.0);
        return in;
      });
      next.stage[i] = base.stage[i] + wait;
      if (base.stage[i] > 0) next.step[i] = base.step[i] * next.stage[i] / base.stage[i];
    }
    // Halfway to the new prices: longer stages spread the same flits over
    // longer times, which shortens the waits again.
    for (std::size_t i = 0; i < N; ++i) {
      c.prices.stage[i] = 0.5 * (c.prices.stage[i] + next.stage[i]);
      c.prices.step[i] = 0.5 * (c.prices.step[i] + next.step[i]);
    }
  }
  c.rt = row_times(g, c.prices);
  return c;
}

// A stream's copies of its graph inputs into their bordered buffers and of
// its outputs into the host's areas run on cores of their neighbours
// (stream_copy_cores), image after image, between those cores' own layers:
// per node, the longest copy one of its cores makes per image. Each row is
// a DMA from one memory and a DMA into the other, one of them the host's
// area in global memory proper, which answers after gmem.latency_ns. The
// mlp's first Gemm and its input's copy share a core, 981 and 174 cycles an
// image, and the stream goes at their sum.
static std::vector<double> stream_copy_work(const Graph& g, const Target& t) {
  std::vector<double> work(g.nodes.size(), 0.0);
  if (g.batch <= 1) return work;
  const CostModel cm(t, g.min_strip);
  const double dram_more =
      static_cast<double>(t.timing.gmem_latency_cycles()) - t.timing.sram_latency_cycles;
  const auto add = [&](const Value& v, const std::vector<int>& near) {
    const std::vector<int> cores = stream_copy_cores(g, t, v, near);
    if (cores.empty()) return;
    const std::int64_t rows = (v.shape.h + static_cast<std::int64_t>(cores.size()) - 1) /
                              static_cast<std::int64_t>(cores.size());
    const bool window = t.sram_global_base > 0 && v.buf.addr >= t.sram_global_base;
    const double row = static_cast<double>(2 * cm.dma(v.shape.w * v.shape.c)) + (window ? 1 : 2) * dram_more;
    const double copy = static_cast<double>(rows) * row;
    for (std::size_t k = 0; k < g.nodes.size(); ++k)
      for (int c : g.nodes[k].cores)
        if (std::find(cores.begin(), cores.end(), c) != cores.end()) {
          work[k] += copy;
          break;
        }
  };
  for (std::size_t i = 0; i < g.inputs.size(); ++i)
    if (input_has_pad_layer(g, i)) add(g.val(g.inputs[i]), g.consumers(g.inputs[i]));
  for (std::size_t i = 0; i < g.output_area.size(); ++i) add(g.val(g.outputs[i]), output_writer(g, i));
  return work;
}

double contended_period(const Graph& g, const Target& t, double floor, double* stage_at) {
  const StagePrices base = loaded_prices(g);
  const Waits waits(g, t);
  const std::vector<double> copies = stream_copy_work(g, t);
  // Every layer busy all the time: all its flits of an image in each period.
  std::vector<Load> total(waits.resources());
  for (std::size_t r = 0; r < total.size(); ++r)
    for (std::size_t j = 0; j < g.nodes.size(); ++j)
      if (waits.moves(j)) waits.add(total[r], j, r, 1.0);
  const auto slowest = [&](double P) {
    double s = 0;
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
      if (!g.nodes[i].fused)
        s = std::max({s, base.stage[i] + waits.of(i, P, [&](std::size_t r) -> const Load& { return total[r]; }),
                      base.stage[i] + copies[i]});
    return s;
  };
  // The slowest stage falls as the period grows (the same flits over more
  // time): bisect for the period it meets, to a hundredth of a cycle (near
  // a busy resource the stage falls a few cycles for each cycle of period,
  // so half a cycle of period left it two cycles off).
  double lo = std::max(floor, 1.0), hi = lo;
  if (slowest(lo) <= lo) {
    if (stage_at) *stage_at = slowest(lo);
    return lo;
  }
  while (slowest(hi) > hi) hi *= 2;
  for (int k = 0; k < 80 && hi - lo > 0.01; ++k) {
    const double mid = 0.5 * (lo + hi);
    (slowest(mid) > mid ? lo : hi) = mid;
  }
  if (stage_at) *stage_at = slowest(hi);
  return hi;
}

}  // namespace vp::cc
