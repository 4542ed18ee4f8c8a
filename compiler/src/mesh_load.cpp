#include "vp/cc/mesh_load.h"

#include <algorithm>
#include <string>
#include <vector>

#include "energy_estimate.h"
#include "vp/config/param_defaults.h"

namespace vp::cc {
namespace {

// Directed mesh links indexed by (router, direction): east, west, south,
// north, as the platform's MeshNoc names them; then the ports between
// routers and what hangs on them, both ways, as Chip attaches them: each
// cluster's CUs share one port (local), each cluster SRAM has its own
// (sram<c>), global memory one on its router (gmem).
class LinkBytes {
 public:
  explicit LinkBytes(const Target& t)
      : cols_(t.mesh_cols),
        clusters_(t.clusters),
        gmem_(t.gmem_attach_cluster),
        links_(4u * static_cast<std::size_t>(t.clusters), 0.0),
        ports_(4u * static_cast<std::size_t>(t.clusters) + 2, 0.0),
        entering_((links_.size() + ports_.size()) * kMeshInputs, 0.0) {}

  // A window piece between a CU of cluster `cu` and cluster `sram`'s SRAM.
  // The cluster's own granules do not touch the mesh (ClusterBus).
  void window(int cu, int sram, double bytes, bool write) {
    if (bytes <= 0 || cu == sram) return;
    if (write) {
      port(cu, kLocalInject) += bytes;
      const int in = route(cu, sram, bytes, kFromLocal);
      port(sram, kSramEject) += bytes;
      enter(port_index(sram, kSramEject), in, bytes);
    } else {
      port(sram, kSramInject) += bytes;
      const int in = route(sram, cu, bytes, kFromSram);
      port(cu, kLocalEject) += bytes;
      enter(port_index(cu, kLocalEject), in, bytes);
    }
  }

  // Global memory proper: through its port even from its own router.
  void dram(int cu, double bytes, bool write) {
    if (bytes <= 0) return;
    if (write) {
      port(cu, kLocalInject) += bytes;
      const int in = route(cu, gmem_, bytes, kFromLocal);
      ports_[ports_.size() - 1] += bytes;
      enter(links_.size() + ports_.size() - 1, in, bytes);
    } else {
      ports_[ports_.size() - 2] += bytes;
      const int in = route(gmem_, cu, bytes, kFromGmem);
      port(cu, kLocalEject) += bytes;
      enter(port_index(cu, kLocalEject), in, bytes);
    }
  }

  // Every link, then every port, in one vector (NodeTraffic's order).
  std::vector<double> all() const {
    std::vector<double> v(links_);
    v.insert(v.end(), ports_.begin(), ports_.end());
    return v;
  }

  // Each resource's bytes by where they came from (kMeshInputs a resource,
  // in all()'s order): an inject port's all from kFirstHop.
  std::vector<double> entering() const {
    std::vector<double> v(entering_);
    for (std::size_t i = 0; i < ports_.size(); ++i)
      if (is_inject(i)) v[(links_.size() + i) * kMeshInputs + kFirstHop] = ports_[i];
    return v;
  }

  MeshLoad load(double link_bytes) const {
    MeshLoad m;
    for (std::size_t i = 0; i < links_.size(); ++i) {
      if (links_[i] <= m.busiest_flits * link_bytes) continue;
      m.busiest_flits = links_[i] / link_bytes;
      const int r = static_cast<int>(i / 4), d = static_cast<int>(i % 4);
      const int x = r % cols_, y = r / cols_;
      const int nx = x + (d == 0 ? 1 : d == 1 ? -1 : 0), ny = y + (d == 2 ? 1 : d == 3 ? -1 : 0);
      m.busiest = router(x, y) + "->" + router(nx, ny);
    }
    for (std::size_t i = 0; i < ports_.size(); ++i) {
      if (ports_[i] <= m.busiest_port_flits * link_bytes) continue;
      m.busiest_port_flits = ports_[i] / link_bytes;
      m.busiest_port = port_name(i);
    }
    return m;
  }

 private:
  enum : int { kLocalInject = 0, kLocalEject = 1, kSramInject = 2, kSramEject = 3 };

  // Where a resource's bytes came from, the inputs of its router: a link
  // heading east, west, south or north (the directions' indices), or an
  // inject port.
  enum : int { kFromLocal = 4, kFromSram = 5, kFromGmem = 6 };

  double& port(int cluster, int kind) { return ports_[static_cast<std::size_t>(4 * cluster + kind)]; }
  std::size_t port_index(int cluster, int kind) const {
    return links_.size() + static_cast<std::size_t>(4 * cluster + kind);
  }
  bool is_inject(std::size_t port) const {
    return static_cast<int>(port / 4) >= clusters_ ? port % 2 == 0 : port % 4 == kLocalInject || port % 4 == kSramInject;
  }
  void enter(std::size_t resource, int from, double bytes) {
    entering_[resource * kMeshInputs + static_cast<std::size_t>(from)] += bytes;
  }

  static std::string router(int x, int y) { return "r(" + std::to_string(x) + "," + std::to_string(y) + ")"; }

  // vp-run's statistics' names (MeshNoc).
  std::string port_name(std::size_t i) const {
    const auto c = static_cast<int>(i / 4);
    if (c >= clusters_) {
      const std::string r = router(gmem_ % cols_, gmem_ / cols_);
      return i % 2 == 0 ? "gmem->" + r : r + "->gmem";
    }
    const std::string r = router(c % cols_, c / cols_);
    const std::string local = "local(" + std::to_string(c % cols_) + "," + std::to_string(c / cols_) + ")";
    const std::string sram = "sram" + std::to_string(c);
    switch (static_cast<int>(i % 4)) {
      case kLocalInject: return local + "->" + r;
      case kLocalEject: return r + "->" + local;
      case kSramInject: return sram + "->" + r;
      default: return r + "->" + sram;
    }
  }

  // XY routing: all X hops first, then Y (hw/src/noc/mesh_noc.cpp). `in`:
  // the input the bytes reach the first link from; returns the one they
  // leave the last from (a link's direction, or `in` without a hop).
  int route(int from, int to, double bytes, int in) {
    if (bytes <= 0 || from == to) return in;
    int x = from % cols_, y = from / cols_;
    const int tx = to % cols_, ty = to / cols_;
    const auto hop = [&](int d) {
      const auto i = static_cast<std::size_t>(4 * (y * cols_ + x) + d);
      links_[i] += bytes;
      enter(i, in, bytes);
      in = d;
    };
    while (x != tx) {
      hop(tx > x ? 0 : 1);
      x += tx > x ? 1 : -1;
    }
    while (y != ty) {
      hop(ty > y ? 2 : 3);
      y += ty > y ? 1 : -1;
    }
    return in;
  }

  int cols_, clusters_, gmem_;
  std::vector<double> links_, ports_, entering_;
};

}  // namespace

namespace {

// How a value's bytes in the window spread over the clusters: granule i of
// the window lives in cluster i mod clusters, so a value of many granules
// spreads evenly and a small one sits in the few clusters its granules fall
// in (tiny_cnn's 3 KB input: two SRAMs, whose ports every reader shares).
// Before plan_memory (no address) every value counts as spread evenly.
// A value in two buffers (a stream's images alternating between them)
// counts half in each.
std::vector<double> cluster_shares(const Value& v, const Target& t) {
  std::vector<double> share(static_cast<std::size_t>(t.clusters), 1.0 / t.clusters);
  const std::int64_t held = v.buf.held(v.shape);
  const std::int64_t granule = t.sram_interleave_bytes;
  if (v.buf.addr < t.sram_global_base || held <= 0 || granule <= 0) return share;
  std::fill(share.begin(), share.end(), 0.0);
  const bool twin = v.buf.alt >= t.sram_global_base;
  if (v.buf.pitch > 0) {  // each row in the granule its pitch puts it in
    const std::int64_t rows = v.buf.hp(v.shape);
    for (const std::int64_t base : {v.buf.addr, twin ? v.buf.alt : std::int64_t{-1}}) {
      if (base < 0) continue;
      for (std::int64_t h = 0; h < rows; ++h) {
        const std::int64_t g = (base - t.sram_global_base + h * v.buf.pitch) / granule;
        share[static_cast<std::size_t>(g % t.clusters)] += (twin ? 0.5 : 1.0) / static_cast<double>(rows);
      }
    }
    return share;
  }
  for (const std::int64_t base : {v.buf.addr, twin ? v.buf.alt : std::int64_t{-1}}) {
    if (base < 0) continue;
    const double part = twin ? 0.5 : 1.0;
    const std::int64_t lo = base - t.sram_global_base, hi = lo + held;
    for (std::int64_t at = lo; at < hi;) {
      const std::int64_t g = at / granule, end = std::min(hi, (g + 1) * granule);
      share[static_cast<std::size_t>(g % t.clusters)] += part * static_cast<double>(end - at) / static_cast<double>(held);
      at = end;
    }
  }
  return share;
}

}  // namespace

namespace {

// A node's bytes, each with the clusters its window bytes lie in.
struct Routed {
  ValueBytes v;
  std::vector<double> share;
};
std::vector<Routed> routed_bytes(const Graph& g, const Node& n, const Target& t) {
  std::vector<Routed> out;
  for (const ValueBytes& v : memory_bytes_by_value(g, n, t))
    out.push_back({v, v.window ? cluster_shares(*v.value, t) : std::vector<double>{}});
  return out;
}

// One of the node's CUs, in cluster k: its share of the node's bytes added
// to `links`.
void route_cu(const std::vector<Routed>& bytes, double per_core, int k, LinkBytes& links) {
  for (const Routed& r : bytes) {
    const double b = static_cast<double>(r.v.bytes) * per_core;
    if (!r.v.window) {
      links.dram(k, b, r.v.written);
      continue;
    }
    for (std::size_t s = 0; s < r.share.size(); ++s) links.window(k, static_cast<int>(s), b * r.share[s], r.v.written);
  }
}

// One node's bytes added to `links`, as mesh_load routes them.
void route_node(const Graph& g, const Node& n, const Target& t, LinkBytes& links) {
  const std::vector<Routed> bytes = routed_bytes(g, n, t);
  for (int c : n.cores) route_cu(bytes, 1.0 / static_cast<double>(n.cores.size()), t.cluster_of(c), links);
}

}  // namespace

MeshLoad mesh_load(const Graph& g, const Target& t) {
  if (t.mesh_cols <= 0 || t.clusters <= 0) return {};
  LinkBytes links(t);
  for (const Node& n : g.nodes)
    if (!n.fused && !n.cores.empty()) route_node(g, n, t, links);
  return links.load(t.noc_link_bits / 8.0);
}

namespace {

// Each node's routed bytes, as `view` lists them, in flits.
template <class View>
std::vector<std::vector<double>> per_node(const Graph& g, const Target& t, View view) {
  std::vector<std::vector<double>> out(g.nodes.size());
  if (t.mesh_cols <= 0 || t.clusters <= 0) return out;
  const double link_bytes = t.noc_link_bits / 8.0;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.fused || n.cores.empty()) continue;
    LinkBytes links(t);
    route_node(g, n, t, links);
    out[i] = view(links);
    for (double& f : out[i]) f /= link_bytes;
  }
  return out;
}

}  // namespace

std::vector<std::vector<double>> node_traffic(const Graph& g, const Target& t) {
  return per_node(g, t, [](const LinkBytes& l) { return l.all(); });
}

std::vector<std::vector<double>> node_traffic_entering(const Graph& g, const Target& t) {
  return per_node(g, t, [](const LinkBytes& l) { return l.entering(); });
}

std::vector<std::vector<double>> cu_traffic(const Graph& g, const Node& n, const Target& t) {
  std::vector<std::vector<double>> out;
  if (t.mesh_cols <= 0 || t.clusters <= 0 || n.cores.empty()) return out;
  const std::vector<Routed> bytes = routed_bytes(g, n, t);
  for (int k = 0; k < t.clusters; ++k) {
    LinkBytes links(t);
    route_cu(bytes, 1.0 / static_cast<double>(n.cores.size()), k, links);
    out.push_back(links.all());
    for (double& f : out.back()) f /= t.noc_link_bits / 8.0;
  }
  return out;
}

}  // namespace vp::cc
