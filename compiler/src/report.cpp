// --report: per layer shape, MACs, crossbars, crossbar cell utilization, the
// copies (replicas, or cores for operators without weights), lanes and averaged reads, the
// cost model's stage time (schedule_cost.h) and the analytic lower bound
// (MVMs per crossbar x MVM cycles). The whole-model estimate, plus the
// firmware's start of the cores: with one layer per CU (the layers
// overlap) the slowest stage plus every layer's row step; with CUs shared
// by layers (each CU runs its parts in turn) the sum of the stages. vp-run
// gives the real figure.
#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>
#include <string>

#include "schedule_cost.h"

namespace vp::cc {

std::string layer_report(const Graph& g, const Target& t) {
  std::ostringstream o;
  char line[512];
  std::snprintf(line, sizeof line, "%-28s %-18s %-16s %14s %7s %6s %6s %12s %12s\n", "layer", "op", "out CxHxW", "MACs",
                "xbars", "util", "copies", "est. cycles", "MVM bound");
  o << line;
  std::int64_t tot_macs = 0, tot_x = 0, tot_cyc = 0, tot_bound = 0, slowest = 0, steps = 0, slowest_step = 0;
  std::set<int> seen;
  bool overlapped = true;
  for (const Node& n : g.nodes)
    for (int c : n.cores) overlapped = seen.insert(c).second && overlapped;
  double used_cells = 0;
  for (const Node& n : g.nodes) {
    const Shape& s = g.val(n.out[0]).shape;
    std::int64_t macs = 0, xbars = 0;
    double util = 0;
    if (op_has(n.op, op_crossbar)) {
      const Value& w = g.val(n.in[1]);
      macs = static_cast<std::int64_t>(w.data.size()) * s.h * s.w;
      for (const auto& ct : n.tiles)
        for (const auto& p : ct.parts) xbars += std::int64_t{p.row_tiles} * p.lanes;
      // Cells that hold a weight of the layer (zeros of other groups excluded), in every copy.
      const double cells = double(w.data.size()) * t.cols_per_weight() * n.replicas * n.lanes;
      util = xbars ? cells / (double(xbars) * t.rows * t.cols) : 0;
      used_cells += cells;
    }
    tot_macs += macs;
    tot_x += xbars;
    tot_cyc += n.stage_cycles;
    steps += n.step_cycles;
    tot_bound = overlapped ? std::max(tot_bound, n.bound_cycles) : tot_bound + n.bound_cycles;
    if (n.stage_cycles > slowest) {
      slowest = n.stage_cycles;
      slowest_step = n.step_cycles;
    }
    char shape[64];
    std::snprintf(shape, sizeof shape, "%lldx%lldx%lld", static_cast<long long>(s.c), static_cast<long long>(s.h),
                  static_cast<long long>(s.w));
    // Averaged reads (--average-reads) follow a slash: 17x4/4 is 17 copies
    // of 4 lanes, each MVM read 4 times.
    const std::string copies = std::to_string(n.replicas) + (n.lanes > 1 ? "x" + std::to_string(n.lanes) : std::string()) +
                               (n.reads > 1 ? "/" + std::to_string(n.reads) : std::string());
    std::snprintf(line, sizeof line, "%-28.28s %-18s %-16s %14lld %7lld %5.1f%% %6s %12lld %12lld\n", n.name.c_str(),
                  op_name(n.op).c_str(), shape, static_cast<long long>(macs), static_cast<long long>(xbars), util * 100,
                  copies.c_str(), static_cast<long long>(n.stage_cycles), static_cast<long long>(n.bound_cycles));
    o << line;
  }
  // The firmware's start and wait of every core with a program.
  std::set<int> cores;
  for (const Node& n : g.nodes) cores.insert(n.cores.begin(), n.cores.end());
  const std::int64_t start = CostModel(t).start(static_cast<std::int64_t>(cores.size()));
  // The slowest layer's whole stage, one step of every other.
  tot_cyc = (overlapped ? slowest + steps - slowest_step : tot_cyc) + start;
  std::snprintf(line, sizeof line, "%-28s %-18s %-16s %14s %7s %6s %6d %12lld %12s\n", "(start and wait of the CUs)",
                "-", "-", "-", "-", "-", static_cast<int>(cores.size()), static_cast<long long>(start), "-");
  o << line;
  std::snprintf(line, sizeof line,
                "total: %lld MACs, %lld of %lld crossbars (%.1f%% of the chip), cell utilization of used crossbars "
                "%.1f%%, est. %lld cycles (%s), MVM bound %lld cycles (MVM %lld cycles), slowest stage %lld cycles\n",
                static_cast<long long>(tot_macs), static_cast<long long>(tot_x), static_cast<long long>(t.crossbars()),
                100.0 * double(tot_x) / double(t.crossbars()),
                tot_x ? 100.0 * used_cells / (double(tot_x) * t.rows * t.cols) : 0.0, static_cast<long long>(tot_cyc),
                overlapped ? "layers overlapped: the slowest stage and one row step of every other layer"
                           : "CUs shared: the sum of the stages",
                static_cast<long long>(tot_bound), static_cast<long long>(CostModel(t).mvm_cycles()),
                static_cast<long long>(slowest));
  o << line;
  return o.str();
}

}  // namespace vp::cc
