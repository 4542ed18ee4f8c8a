// --report: per layer shape, whether it runs on crossbars (analog MVMs) or
// on the digital path (the vector and scalar units), MACs (a MatMul of two
// activations counts its digital ones), crossbars, crossbar cell utilization, the
// copies (replicas, or cores for operators without weights), lanes and averaged reads, the
// cost model's stage time (schedule_cost.h) and the analytic lower bound
// (MVMs per crossbar x MVM cycles), and the layer's share of the sum of the
// stage times. The whole-model estimate, plus the
// firmware's start of the cores: with one layer per CU (the layers
// overlap) the critical path of the row hand-over with the waits at busy
// links and ports (contended_times.h);
// with CUs shared by layers (each CU runs its parts in turn) the sum of the
// stages. vp-run gives the real figure.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "energy_estimate.h"
#include "contended_times.h"
#include "schedule_cost.h"
#include "vp/cc/mesh_load.h"
#include "vp/cc/passes.h"

namespace vp::cc {

namespace {

// The layers overlapped (one layer per CU): the critical path of the row
// hand-over. A layer's first output row is done one step after the rows
// its first windows read exist (each writer delivering a row per step over
// the rows it computes at once, or slower when its own inputs hold it
// back); its last row once every row it reads exists and the rows that
// read the last input row are computed; and no sooner than its whole stage
// after its first row started.
}  // namespace

double stage_with_tokens(const Node& n) {
  return static_cast<double>(n.stage_cycles) + static_cast<double>(kTokenCycles * n.sync_tokens);
}

double step_with_tokens(const Node& n) {
  // The messages spread over the share's rows as the stage is.
  if (n.stage_cycles <= 0) return static_cast<double>(n.step_cycles);
  return static_cast<double>(n.step_cycles) * stage_with_tokens(n) / static_cast<double>(n.stage_cycles);
}

StagePrices choice_prices(const Graph& g) {
  StagePrices p;
  for (const Node& n : g.nodes) {
    p.stage.push_back(stage_with_tokens(n));
    p.step.push_back(step_with_tokens(n));
  }
  return p;
}

RowTimes overlapped_times(const Graph& g, const StagePrices& p) {
  const std::size_t N = g.nodes.size();
  RowTimes rt(N);
  std::vector<double>& first = rt.first;
  std::vector<double>& last = rt.last;
  std::vector<double> interval(N, 0);
  const std::vector<int> storer = storers(g);
  for (std::size_t i = 0; i < N; ++i) {
    const Node& n = g.nodes[i];
    if (n.fused) continue;
    const Shape& o = g.val(n.out[0]).shape;
    const double step = p.step[i], stage = p.stage[i];
    const double G = static_cast<double>(rows_at_once(g, n));
    const std::vector<std::pair<int, bool>> ins = row_inputs(g, n);
    double ready_first = 0, ready_last = 0, in_interval = 0;
    std::vector<std::pair<std::size_t, double>> paced;  // (writer, its rows per output row)
    for (const auto& [v, window] : ins) {
      if (v < 0) continue;  // an optional input left out
      const int w = storer[static_cast<std::size_t>(v)];
      if (w < 0) continue;  // a constant or a graph input
      const std::int64_t H = g.val(v).shape.h;
      std::int64_t need = 1, tail = 1;
      if (window) {
        need = std::min<std::int64_t>(H, std::int64_t{n.geom.kh - 1} * n.geom.dh + 1 - n.geom.pt);
        tail = 0;
        for (std::int64_t h = 0; h < o.h; ++h)
          tail += h * n.geom.sh - n.geom.pt + std::int64_t{n.geom.kh - 1} * n.geom.dh >= H - 1;
      } else if (n.op == OpKind::MatMul && v == n.in[1] && n.windows > 1) {
        need = H / n.windows;  // the first window's block of B
      } else if (n.op == OpKind::GlobalAveragePool || (n.op == OpKind::MatMul && v == n.in[1] && !n.causal)) {
        need = H;  // every row (a MatMul's second operand: all of B for each output row, unless causal)
      } else if (!n.gather.empty()) {  // a pixel gather: the input rows its first row's pixels come from
        const std::int64_t per_row = o.w * (o.c / std::max<std::int64_t>(1, g.val(v).shape.c)), XW = g.val(v).shape.w;
        for (std::int64_t k = 0; k < per_row && k < static_cast<std::int64_t>(n.gather.size()); ++k)
          need = std::max(need, n.gather[static_cast<std::size_t>(k)] / XW + 1);
      }
      const std::size_t wi = static_cast<std::size_t>(w);
      const double rows_after = static_cast<double>(std::max<std::int64_t>(1, tail));
      const double per_out_row = static_cast<double>(H) / static_cast<double>(std::max<std::int64_t>(1, o.h));
      // Rows ahead: the first row waits for the second row's inputs too.
      const double rows_before =
          static_cast<double>(std::max<std::int64_t>(0, need - 1)) + (n.rows_ahead ? per_out_row : 0.0);
      ready_first = std::max(ready_first, first[wi] + rows_before * interval[wi]);
      ready_last = std::max(ready_last, last[wi] + std::ceil(rows_after / G) * step);
      // A tensor of one row (a global pooling's, a squeeze-excitation's
      // scale), or an output of one, has no pace: its row is there or not.
      if (H > 1 && o.h > 1) paced.emplace_back(wi, per_out_row);
    }
    // Only a writer still delivering rows when this layer can start paces
    // it: one done before (an input every row of which a global pooling
    // had to wait for) has its rows all there.
    for (const auto& [wi, per_out_row] : paced)
      if (last[wi] > ready_first) in_interval = std::max(in_interval, interval[wi] * per_out_row);
    const double own = stage / static_cast<double>(std::max<std::int64_t>(1, o.h));
    interval[i] = std::max(own, in_interval);
    first[i] = ready_first + step;
    rt.step[i] = step;
    last[i] = std::max({ready_last, first[i] - step + stage,
                        first[i] + static_cast<double>(o.h - 1) * interval[i]});
    rt.total = std::max(rt.total, last[i]);
  }
  return rt;
}

bool layers_overlap(const Graph& g) {
  std::set<int> seen;
  bool overlapped = true;
  for (const Node& n : g.nodes)
    for (int c : n.cores) overlapped = seen.insert(c).second && overlapped;
  return overlapped;
}

RowTimes estimated_times(const Graph& g, const Target* t) {
  if (layers_overlap(g)) return t ? contended_times(g, *t).rt : overlapped_times(g);
  // Shared CUs run their parts of each layer in turn: one layer after the
  // other.
  RowTimes rt;
  for (const Node& n : g.nodes) {
    rt.step.push_back(step_with_tokens(n));
    rt.first.push_back(n.fused ? 0 : rt.total + step_with_tokens(n));
    rt.total += stage_with_tokens(n);
    rt.last.push_back(n.fused ? 0 : rt.total);
  }
  return rt;
}

namespace {


// The firmware's part of a start: its copies of the inputs and outputs,
// and the start of every core with a program.
std::int64_t firmware_cycles(const Graph& g, const Target& t, std::int64_t& cores_used) {
  std::set<int> cores;
  for (const Node& n : g.nodes) cores.insert(n.cores.begin(), n.cores.end());
  std::vector<std::int64_t> in_bytes, out_bytes;
  // A stream's bindings hold its N images. The firmware copies none of an
  // input its pad layer reads in place (only the bytes' address into its
  // pointer word), all N images of any other before it starts the cores,
  // and all outputs after they end.
  for (std::size_t i = 0; i < g.inputs.size(); ++i)
    in_bytes.push_back(input_has_pad_layer(g, i) ? 0 : g.val(g.inputs[i]).shape.numel() * g.batch);
  for (int v : g.outputs) out_bytes.push_back(g.val(v).shape.numel() * g.batch);
  cores_used = static_cast<std::int64_t>(cores.size());
  return CostModel(t).start(cores_used, in_bytes, out_bytes);
}

}  // namespace

// Every layer's memory traffic through the memory's ports at once: with
// the layers overlapped they share them, so the inference takes at least
// the longer of the SRAM window's traffic at its ports and global memory's
// at its one router (each stage counts only its own traffic). A node's
// bytes are its output written once and the rest read, split over its
// inputs by their size; each goes where plan_memory put the value. VGG-11's
// convolutions at 224x224 move 113 MB, 110 MB of it in the window: 862,678
// cycles, more than their row hand-over's 644,420.
static std::int64_t memory_floor(const Graph& g, const Target& t) {
  const CostModel cm(t, g.min_strip);
  std::int64_t window = 0, dram = 0;
  for (const Node& n : g.nodes) {
    const MemoryBytes b = memory_bytes_of(g, n, t);
    window += b.window;
    dram += b.dram;
  }
  return std::max(cm.port(window), cm.dram_port(dram));
}

// A stream's period, the cycles between one image's end and the next's once
// the pipeline is full: the slowest of every stage, the memory floor, the
// busiest port between a router and what hangs on it (a cluster's CUs
// share one, each way: with a layer's CUs in one cluster that port, not
// the crossbars, paced ResNet-18's max pooling at 257 k cycles per image
// where its stage is 154 k) and the busiest mesh link (mesh_load.h). A
// link or port carries at most one flit a cycle. A bound, not a fit: on
// ResNet-50 at batch 16 the busiest link carried flits in 68 % of the
// run's cycles (MobileNetV2 48 %, ResNet-18 46 %), and the period was
// longer than any link's flits.
struct StreamPeriod {
  std::int64_t cycles = 0, stage = 0, floor = 0, port = 0, mesh = 0;
  std::string port_name, link;
};
static StreamPeriod stream_period(const Graph& g, const Target& t) {
  StreamPeriod p;
  p.floor = memory_floor(g, t);
  const MeshLoad mesh = mesh_load(g, t);
  // A flit holds a link one NoC cycle.
  const double noc_cycle = t.timing.chip_clock_mhz / t.timing.noc_clock_mhz;
  p.mesh = static_cast<std::int64_t>(std::ceil(mesh.busiest_flits * noc_cycle));
  p.link = mesh.busiest;
  p.port = static_cast<std::int64_t>(std::ceil(mesh.busiest_port_flits * noc_cycle));
  p.port_name = mesh.busiest_port;
  double stage = 0;
  p.cycles = static_cast<std::int64_t>(
      std::ceil(contended_period(g, t, static_cast<double>(std::max({p.floor, p.port, p.mesh})), &stage)));
  p.stage = static_cast<std::int64_t>(std::ceil(stage));
  return p;
}

// The critical path with the cores' starts in it. The firmware starts the
// cores one after another in the order of their first layer (the host's
// program table, docs/firmware.md), so node k's cores have all started
// CostModel::start_per_core() cycles per core before them and it; a node
// whose first row begins in the path before its last core has started
// pushes the rest of the path back by the difference. (Counted as a lump
// before the path, swin_layout's 350 starts, about 1.75 k cycles, came on
// top of layers already running: 1.12 of its run.) The order is the
// loader's (in_start_order in model_image.cpp) as the nodes give it.
static double path_with_starts(const Graph& g, const RowTimes& rt) {
  std::vector<std::pair<std::size_t, int>> order;  // (first node, core): the start order
  std::map<int, std::size_t> first;
  for (std::size_t k = 0; k < g.nodes.size(); ++k)
    if (!g.nodes[k].fused)
      for (int c : g.nodes[k].cores) first.emplace(c, k);
  for (const auto& [c, k] : first) order.emplace_back(k, c);
  std::sort(order.begin(), order.end());
  std::map<int, std::size_t> rank;
  for (std::size_t i = 0; i < order.size(); ++i) rank[order[i].second] = i + 1;
  double path = rt.total;
  for (std::size_t k = 0; k < g.nodes.size() && k < rt.first.size(); ++k) {
    const Node& n = g.nodes[k];
    if (n.fused || n.cores.empty()) continue;
    std::size_t last = 0;
    for (int c : n.cores) last = std::max(last, rank[c]);
    const double started = static_cast<double>(CostModel::start_per_core()) * static_cast<double>(last);
    const double begins = std::max(0.0, rt.first[k] - rt.step[k]);
    path = std::max(path, rt.total + started - begins);
  }
  return path;
}

// The estimate with the critical path already taken (the report has it
// from its per-layer rows and does not take it again). With the layers
// overlapped the cores' starts are in the path (path_with_starts), else
// in the firmware's part before the layers.
static std::int64_t estimate_with_path(const Graph& g, const Target& t, const RowTimes& rt) {
  std::int64_t sum = 0, cores = 0;
  for (const Node& n : g.nodes) sum += static_cast<std::int64_t>(stage_with_tokens(n));
  const std::int64_t fw = firmware_cycles(g, t, cores);
  if (!layers_overlap(g)) return sum + fw;
  const std::int64_t path = static_cast<std::int64_t>(path_with_starts(g, rt));
  return std::max(path, memory_floor(g, t)) + fw - CostModel::start_per_core() * cores;
}

std::int64_t estimate_cycles(const Graph& g, const Target& t, bool waits) {
  if (!layers_overlap(g)) return estimate_with_path(g, t, RowTimes{});
  return estimate_with_path(g, t, waits ? contended_times(g, t).rt : overlapped_times(g));
}

static std::int64_t per_inference(const Graph& g, std::int64_t first, const StreamPeriod& period) {
  return g.batch > 1 && period.cycles > 0 ? (first + (g.batch - 1) * period.cycles) / g.batch : first;
}

std::int64_t inference_estimate_cycles(const Graph& g, const Target& t) {
  const bool stream = g.batch > 1 && layers_overlap(g);
  return per_inference(g, estimate_cycles(g, t), stream ? stream_period(g, t) : StreamPeriod{});
}

std::string layer_report(const Graph& g, const Target& t) {
  std::ostringstream o;
  char line[512];
  std::snprintf(line, sizeof line, "%-28s %-18s %-7s %-16s %14s %7s %6s %6s %12s %6s %10s %10s %12s %9s %10s %6s\n",
                "layer", "op", "path", "out CxHxW", "MACs", "xbars", "util", "copies", "est. cycles", "share",
                "first row", "last row", "MVM bound", "mem kB", "est. uJ", "share");
  o << line;
  std::int64_t tot_macs = 0, tot_x = 0, tot_bound = 0, slowest = 0, digital_macs = 0, stage_sum = 0,
               digital_stage = 0;
  const bool overlapped = layers_overlap(g);
  // When each layer's first and last output rows are done, cycles after the
  // layers start, and each one's stage: with the layers overlapped, the
  // estimate's (the waits at busy links and ports included), else the copy
  // choice's one after the other (estimated_times).
  const Contended est = overlapped ? contended_times(g, t) : Contended{};
  const RowTimes rt = overlapped ? est.rt : estimated_times(g);
  std::vector<std::int64_t> stage_of;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    stage_of.push_back(overlapped && !n.fused ? std::llround(est.prices.stage[i]) : n.stage_cycles);
    stage_sum += stage_of.back();
    if (!op_has(n.op, op_crossbar)) digital_stage += stage_of.back();
  }
  double used_cells = 0;
  // Energy per layer (energy_estimate.h) and its share of the model's.
  std::vector<LayerEnergy> energy;
  LayerEnergy total_energy;
  for (const Node& n : g.nodes) {
    energy.push_back(layer_energy(g, n, t));
    total_energy.crossbar_pj += energy.back().crossbar_pj;
    total_energy.vector_pj += energy.back().vector_pj;
    total_energy.memory_pj += energy.back().memory_pj;
  }
  double digital_pj = 0;
  std::size_t ni = 0;
  for (const Node& n : g.nodes) {
    const Shape& s = g.val(n.out[0]).shape;
    std::int64_t macs = 0, xbars = 0;
    double util = 0;
    if (op_has(n.op, op_crossbar)) {
      const Value& w = g.val(n.in[1]);
      macs = static_cast<std::int64_t>(w.data.size()) * s.h * s.w;
      for (const auto& ct : n.tiles)
        for (const auto& p : ct.parts) xbars += p.crossbars();
      // Cells that hold a weight of the layer (zeros of other groups excluded), in every copy.
      const double cells = double(w.data.size()) * t.cols_per_weight(xbar_format(n, t)) * n.replicas * n.lanes * n.redundancy;
      util = xbars ? cells / (double(xbars) * t.rows * t.cols) : 0;
      used_cells += cells;
    } else if (n.op == OpKind::MatMul) {
      macs = s.c * s.h * s.w * (g.val(n.in[0]).shape.c / n.heads);
      digital_macs += macs;
    }
    tot_macs += macs;
    tot_x += xbars;
    tot_bound = overlapped ? std::max(tot_bound, n.bound_cycles) : tot_bound + n.bound_cycles;
    slowest = std::max(slowest, stage_of[ni]);
    char shape[64];
    std::snprintf(shape, sizeof shape, "%lldx%lldx%lld", static_cast<long long>(s.c), static_cast<long long>(s.h),
                  static_cast<long long>(s.w));
    // Averaged reads (--average-reads) follow a slash, redundant copies
    // (--redundancy) a plus: 17x4/4 is 17 copies of 4 lanes, each MVM read 4
    // times; 1+2 one copy whose weights are held twice.
    const std::string copies = std::to_string(n.replicas) + (n.lanes > 1 ? "x" + std::to_string(n.lanes) : std::string()) +
                               (n.reads > 1 ? "/" + std::to_string(n.reads) : std::string()) +
                               (n.redundancy > 1 ? "+" + std::to_string(n.redundancy) : std::string());
    // Input bits below 8 (--input-bits) follow the kind: xbar/6; then a
    // weight format other than the chip's (--weight-bits, --encoding):
    // xbar/6,w4 (4-bit weights), xbar,diff (differential pairs).
    std::string kind = !op_has(n.op, op_crossbar) ? "digital"
                       : n.input_bits < 8         ? "xbar/" + std::to_string(n.input_bits)
                                                  : "xbar";
    if (op_has(n.op, op_crossbar)) {
      const Target::Format f = xbar_format(n, t);
      if (f.weight_bits != t.weight_bits) kind += ",w" + std::to_string(f.weight_bits);
      if (f.differential != t.differential) kind += f.differential ? ",diff" : ",offset";
    }
    const double layer_pj = energy[ni].total();
    const long long first_row = n.fused ? 0 : std::llround(rt.first[ni]), last_row = n.fused ? 0 : std::llround(rt.last[ni]);
    ++ni;
    if (!op_has(n.op, op_crossbar)) digital_pj += layer_pj;
    std::snprintf(line, sizeof line,
                  "%-28.28s %-18s %-7s %-16s %14lld %7lld %5.1f%% %6s %12lld %5.1f%% %10lld %10lld %12lld %9.1f %10.2f "
                  "%5.1f%%\n",
                  n.name.c_str(), op_name(n.op).c_str(), kind.c_str(), shape,
                  static_cast<long long>(macs), static_cast<long long>(xbars), util * 100, copies.c_str(),
                  static_cast<long long>(stage_of[ni - 1]),
                  stage_sum ? 100.0 * double(stage_of[ni - 1]) / double(stage_sum) : 0.0, first_row, last_row,
                  static_cast<long long>(n.bound_cycles), static_cast<double>(n.memory_bytes) * 1e-3, layer_pj * 1e-6,
                  total_energy.total() > 0 ? 100.0 * layer_pj / total_energy.total() : 0.0);
    o << line;
  }
  std::int64_t cores = 0;
  // The firmware's copies (and, with shared CUs, the cores' starts: with
  // the layers overlapped those are in the path, path_with_starts).
  const std::int64_t start =
      firmware_cycles(g, t, cores) - (overlapped ? CostModel::start_per_core() * cores : 0);
  // A stream of N images: the first one's estimate, then one image per
  // period; per inference.
  const std::int64_t first = estimate_with_path(g, t, rt);
  const StreamPeriod period = g.batch > 1 && overlapped ? stream_period(g, t) : StreamPeriod{};
  const std::int64_t tot_cyc = per_inference(g, first, period);
  std::snprintf(line, sizeof line, "%-28s %-18s %-7s %-16s %14s %7s %6s %6d %12lld %6s %10s %10s %12s %9s %10s %6s\n",
                "(firmware: copies, starts)", "-", "-", "-", "-", "-", "-", static_cast<int>(cores),
                static_cast<long long>(start), "-", "-", "-", "-", "-", "-", "-");
  o << line;
  std::int64_t moved = 0;  // every layer's memory bytes (CostModel::memory)
  for (const Node& n : g.nodes) moved += n.memory_bytes;
  std::snprintf(line, sizeof line,
                "total: %lld MACs, %lld of %lld crossbars (%.1f%% of the chip), cell utilization of used crossbars "
                "%.1f%%, est. %lld cycles (%s), memory floor %lld cycles (%.2f MB moved per inference), MVM bound %lld "
                "cycles (MVM %lld cycles), "
                "slowest stage %lld cycles\n",
                static_cast<long long>(tot_macs), static_cast<long long>(tot_x), static_cast<long long>(t.crossbars()),
                100.0 * double(tot_x) / double(t.crossbars()),
                tot_x ? 100.0 * used_cells / (double(tot_x) * t.rows * t.cols) : 0.0, static_cast<long long>(tot_cyc),
                overlapped ? "layers overlapped: the critical path of the row hand-over or the memory floor"
                           : "CUs shared: the sum of the stages",
                static_cast<long long>(memory_floor(g, t)), static_cast<double>(moved) * 1e-6,
                static_cast<long long>(tot_bound), static_cast<long long>(CostModel(t).mvm_cycles()),
                static_cast<long long>(slowest));
  o << line;
  if (g.batch > 1 && overlapped) {
    std::snprintf(line, sizeof line,
                  "stream of %d images: est. %lld cycles per inference, the first image's %lld then one per %lld "
                  "(the slowest of: stage with messages %lld, memory floor %lld, busiest port %s %lld, "
                  "busiest mesh link %s %lld)\n",
                  g.batch, static_cast<long long>(tot_cyc), static_cast<long long>(first),
                  static_cast<long long>(period.cycles), static_cast<long long>(period.stage),
                  static_cast<long long>(period.floor), period.port_name.empty() ? "-" : period.port_name.c_str(),
                  static_cast<long long>(period.port), period.link.empty() ? "-" : period.link.c_str(), static_cast<long long>(period.mesh));
    o << line;
    std::int64_t twins = 0, twin_bytes = 0;
    for (const Value& v : g.values)
      if (v.buf.alt >= 0) {
        ++twins;
        twin_bytes += v.buf.bytes(v.shape);
      }
    if (twins > 0) {
      std::snprintf(line, sizeof line,
                    "stream buffers: %lld tensors in two buffers (%.1f KB more), images alternating between them; "
                    "the image loop emitted twice over\n",
                    static_cast<long long>(twins), static_cast<double>(twin_bytes) / 1024.0);
      o << line;
    }
  }
  std::snprintf(line, sizeof line,
                "analog and digital: %lld MACs on crossbars, %lld on the digital path (MatMuls of two activations); "
                "%.1f%% of the summed stage times on crossbar layers, %.1f%% on the digital path\n",
                static_cast<long long>(tot_macs - digital_macs), static_cast<long long>(digital_macs),
                stage_sum ? 100.0 * double(stage_sum - digital_stage) / double(stage_sum) : 0.0,
                stage_sum ? 100.0 * double(digital_stage) / double(stage_sum) : 0.0);
  o << line;
  const double tot_pj = total_energy.total();
  std::snprintf(line, sizeof line,
                "energy: est. %.2f uJ per inference without leakage: crossbars %.2f (%.1f%%), vector unit %.2f, "
                "memory and mesh %.2f; %.1f%% on crossbar layers, %.1f%% on the digital path\n",
                tot_pj * 1e-6, total_energy.crossbar_pj * 1e-6, tot_pj > 0 ? 100 * total_energy.crossbar_pj / tot_pj : 0.0,
                total_energy.vector_pj * 1e-6, total_energy.memory_pj * 1e-6,
                tot_pj > 0 ? 100 * (tot_pj - digital_pj) / tot_pj : 0.0, tot_pj > 0 ? 100 * digital_pj / tot_pj : 0.0);
  o << line;
  return o.str();
}

}  // namespace vp::cc
