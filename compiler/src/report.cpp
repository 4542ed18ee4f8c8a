// --report: per layer shape, MACs, crossbars, crossbar cell utilization and
// an estimated cycle count. The estimate is a first-order model of the
// emitted code on the default timing (one DMA of ~110 cycles per gathered
// run, ~850 cycles per 8-bit bit-serial MVM on a 256-row crossbar, a few
// cycles of vector work), per output pixel; vp-run gives the real figure.
#include <cstdio>
#include <sstream>

#include "emit_context.h"

namespace vp::cc {

std::string layer_report(const Graph& g, const Target& t) {
  std::ostringstream o;
  char line[512];
  std::snprintf(line, sizeof line, "%-28s %-18s %-16s %14s %7s %6s %12s\n", "layer", "op", "out CxHxW", "MACs",
                "xbars", "util", "est. cycles");
  o << line;
  std::int64_t tot_macs = 0, tot_x = 0, tot_cyc = 0;
  double used_cells = 0;
  for (const Node& n : g.nodes) {
    const Shape& s = g.val(n.out[0]).shape;
    std::int64_t macs = 0, xbars = 0, cyc = 0;
    double util = 0;
    const std::int64_t pixels = s.h * s.w;
    if (op_has(n.op, op_crossbar)) {
      const Value& w = g.val(n.in[1]);
      macs = static_cast<std::int64_t>(w.data.size()) * pixels;
      std::int64_t runs = 0;
      for (const auto& ct : n.tiles) {
        for (const auto& p : ct.parts) xbars += p.row_tiles;
      }
      if (!n.tiles.empty())
        runs = static_cast<std::int64_t>(emit::window_segments(n.geom, g.val(n.in[0]).shape.c,
                                                               g.val(n.in[0]).buf.wp(g.val(n.in[0]).shape),
                                                               n.tiles[0].ci0, n.tiles[0].ci1).size());
      // Cells that hold a weight of the layer (zeros of other groups excluded).
      const double cells = double(w.data.size()) * t.cols_per_weight();
      util = xbars ? cells / (double(xbars) * t.rows * t.cols) : 0;
      used_cells += cells;
      cyc = pixels * (runs * 110 + 850 + 40);
    } else {
      cyc = pixels * 150;
    }
    tot_macs += macs;
    tot_x += xbars;
    tot_cyc += cyc;
    char shape[64];
    std::snprintf(shape, sizeof shape, "%lldx%lldx%lld", static_cast<long long>(s.c), static_cast<long long>(s.h),
                  static_cast<long long>(s.w));
    std::snprintf(line, sizeof line, "%-28.28s %-18s %-16s %14lld %7lld %5.1f%% %12lld\n", n.name.c_str(), op_name(n.op).c_str(),
                  shape, static_cast<long long>(macs), static_cast<long long>(xbars), util * 100,
                  static_cast<long long>(cyc));
    o << line;
  }
  std::snprintf(line, sizeof line,
                "total: %lld MACs, %lld of %lld crossbars (%.1f%% of the chip), cell utilization of used crossbars "
                "%.1f%%, est. %lld cycles\n",
                static_cast<long long>(tot_macs), static_cast<long long>(tot_x), static_cast<long long>(t.crossbars()),
                100.0 * double(tot_x) / double(t.crossbars()),
                tot_x ? 100.0 * used_cells / (double(tot_x) * t.rows * t.cols) : 0.0, static_cast<long long>(tot_cyc));
  o << line;
  return o.str();
}

}  // namespace vp::cc
