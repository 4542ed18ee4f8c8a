#include "vp/cc/mesh_load.h"

#include <algorithm>
#include <vector>

#include "energy_estimate.h"
#include "vp/config/param_defaults.h"

namespace vp::cc {
namespace {

// Directed mesh links indexed by (router, direction): east, west, south,
// north, as the platform's MeshNoc names them.
class LinkBytes {
 public:
  explicit LinkBytes(const Target& t) : cols_(t.mesh_cols), bytes_(4u * static_cast<std::size_t>(t.clusters), 0.0) {}

  // XY routing: all X hops first, then Y (hw/src/noc/mesh_noc.cpp).
  void route(int from, int to, double bytes) {
    if (bytes <= 0 || from == to) return;
    int x = from % cols_, y = from / cols_;
    const int tx = to % cols_, ty = to / cols_;
    while (x != tx) {
      const int d = tx > x ? 0 : 1;
      bytes_[static_cast<std::size_t>(4 * (y * cols_ + x) + d)] += bytes;
      x += tx > x ? 1 : -1;
    }
    while (y != ty) {
      const int d = ty > y ? 2 : 3;
      bytes_[static_cast<std::size_t>(4 * (y * cols_ + x) + d)] += bytes;
      y += ty > y ? 1 : -1;
    }
  }

  MeshLoad load(double link_bytes) const {
    MeshLoad m;
    for (std::size_t i = 0; i < bytes_.size(); ++i) {
      if (bytes_[i] <= m.busiest_flits * link_bytes) continue;
      m.busiest_flits = bytes_[i] / link_bytes;
      const int r = static_cast<int>(i / 4), d = static_cast<int>(i % 4);
      const int x = r % cols_, y = r / cols_;
      const int nx = x + (d == 0 ? 1 : d == 1 ? -1 : 0), ny = y + (d == 2 ? 1 : d == 3 ? -1 : 0);
      m.busiest = "r(" + std::to_string(x) + "," + std::to_string(y) + ")->r(" + std::to_string(nx) + "," +
                  std::to_string(ny) + ")";
    }
    return m;
  }

 private:
  int cols_;
  std::vector<double> bytes_;
};

}  // namespace

MeshLoad mesh_load(const Graph& g, const Target& t) {
  if (t.mesh_cols <= 0 || t.clusters <= 0) return {};
  LinkBytes links(t);
  for (const Node& n : g.nodes) {
    if (n.fused || n.cores.empty()) continue;
    const MemoryBytes b = memory_bytes_of(g, n, t);
    const double share = 1.0 / static_cast<double>(n.cores.size());
    const double window_read = static_cast<double>(b.window - b.window_written) * share,
                 window_written = static_cast<double>(b.window_written) * share,
                 dram_read = static_cast<double>(b.dram - b.dram_written) * share,
                 dram_written = static_cast<double>(b.dram_written) * share;
    for (int c : n.cores) {
      const int k = t.cluster_of(c);
      for (int s = 0; s < t.clusters; ++s) {
        links.route(s, k, window_read / t.clusters);
        links.route(k, s, window_written / t.clusters);
      }
      links.route(t.gmem_attach_cluster, k, dram_read);
      links.route(k, t.gmem_attach_cluster, dram_written);
    }
  }
  return links.load(config::param_default::noc_link_bits / 8.0);
}

}  // namespace vp::cc
