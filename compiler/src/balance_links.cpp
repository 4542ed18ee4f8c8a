#include "balance_links.h"

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

#include "shared_loads.h"
#include "vp/cc/mesh_load.h"

namespace vp::cc {
namespace {

// CUs that must share a cluster, as one set (union by smallest root).
class Together {
 public:
  explicit Together(int n) : up_(static_cast<std::size_t>(n)) { std::iota(up_.begin(), up_.end(), 0); }
  int root(int c) {
    while (up_[static_cast<std::size_t>(c)] != c) c = up_[static_cast<std::size_t>(c)] = up(up(c));
    return c;
  }
  void join(int a, int b) {
    a = root(a);
    b = root(b);
    if (a != b) up_[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
  }

 private:
  int up(int c) const { return up_[static_cast<std::size_t>(c)]; }
  std::vector<int> up_;
};

// A set of CUs that moves as one: its CUs, the CU slots it holds now, and
// the flits it puts on each resource were it in cluster k (traffic[k]).
struct Unit {
  std::vector<int> cores, slots;
  std::vector<std::vector<double>> traffic;
  bool moves = true;
};

// The placement's measure of the mesh: the sum of each link's and port's
// flits over the busiest's, to the 8th power, so that it falls most where a
// resource is busiest (the period follows the busiest link, and its waits
// grow steeply past 90 % busy) yet every resource counts (the powers 4 and
// 16 measured within 1 % of it on ResNet-50's stream).
double eighth(double x) {
  x *= x;
  x *= x;
  return x * x;
}
double measure(const std::vector<double>& load, double scale) {
  double f = 0;
  for (double l : load) f += eighth(l / scale);
  return f;
}

}  // namespace

int balance_links(Graph& g, const Target& t) {
  if (t.mesh_cols <= 0 || t.clusters < 2) return 0;
  const int cores = t.cores();
  Together together(cores);
  for (const Node& n : g.nodes) {
    if (n.fused || n.cores.empty()) continue;
    for (int r = 0; r < static_cast<int>(n.share_copy.size()); ++r)
      if (n.share_copy[static_cast<std::size_t>(r)]) {
        const std::vector<int> c = copy_cores(n, r);
        for (int x : c) together.join(c.front(), x);
      }
    if (n.handed_from >= 0) {
      const Node& w = g.nodes[static_cast<std::size_t>(n.handed_from)];
      for (int r = 0; r < n.replicas; ++r) together.join(copy_cores(w, r).front(), copy_cores(n, r).front());
    }
  }
  std::vector<Unit> units;
  std::vector<int> unit_of(static_cast<std::size_t>(cores), -1);
  for (int c = 0; c < cores; ++c) {
    int& i = unit_of[static_cast<std::size_t>(together.root(c))];
    if (i < 0) {
      i = static_cast<int>(units.size());
      units.emplace_back();
    }
    Unit& u = units[static_cast<std::size_t>(i)];
    u.moves = u.moves && (u.slots.empty() || t.cluster_of(u.slots.front()) == t.cluster_of(c));
    u.cores.push_back(c);
    u.slots.push_back(c);
    unit_of[static_cast<std::size_t>(c)] = i;
  }
  std::size_t resources = 0;
  for (const Node& n : g.nodes) {
    if (n.fused || n.cores.empty()) continue;
    const std::vector<std::vector<double>> at = cu_traffic(g, n, t);
    resources = at.front().size();
    for (int c : n.cores) {
      Unit& u = units[static_cast<std::size_t>(unit_of[static_cast<std::size_t>(c)])];
      u.traffic.resize(static_cast<std::size_t>(t.clusters), std::vector<double>(resources, 0.0));
      for (std::size_t k = 0; k < at.size(); ++k)
        for (std::size_t i = 0; i < resources; ++i) u.traffic[k][i] += at[k][i];
    }
  }
  if (resources == 0) return 0;
  const auto add = [&](std::vector<double>& load, const Unit& u, int cluster, double sign) {
    if (u.traffic.empty()) return;
    const std::vector<double>& f = u.traffic[static_cast<std::size_t>(cluster)];
    for (std::size_t i = 0; i < resources; ++i) load[i] += sign * f[i];
  };
  std::vector<double> load(resources, 0.0);
  for (const Unit& u : units) add(load, u, t.cluster_of(u.slots.front()), 1.0);
  double scale = 0;
  for (double l : load) scale = std::max(scale, l);
  if (scale <= 0) return 0;
  // Swaps of two units of as many CUs in two clusters, pass after pass
  // until none lowers the measure, the first that does taken. Only like for
  // like, so each cluster keeps its count of CUs in groups of each size:
  // letting a group take as many single CUs of another cluster (free ones
  // first) gathered groups where CUs were free, and the streams ran slower
  // than the model had them (ResNet-50 311,890 cycles per inference,
  // against 288,653 like for like and 293,857 as placed).
  const auto cluster = [&](std::size_t i) { return t.cluster_of(units[i].slots.front()); };
  double now = measure(load, scale);
  // The measure with unit u moved from cluster cu to cw and w the other
  // way, without building the loads.
  const auto swapped = [&](const Unit& u, int cu, const Unit& w, int cw) {
    double f = 0;
    for (std::size_t i = 0; i < resources; ++i) {
      double l = load[i];
      if (!u.traffic.empty()) l += u.traffic[static_cast<std::size_t>(cw)][i] - u.traffic[static_cast<std::size_t>(cu)][i];
      if (!w.traffic.empty()) l += w.traffic[static_cast<std::size_t>(cu)][i] - w.traffic[static_cast<std::size_t>(cw)][i];
      f += eighth(l / scale);
    }
    return f;
  };
  bool better = true;
  for (int pass = 0; better && pass < 32; ++pass) {
    better = false;
    for (std::size_t a = 0; a < units.size(); ++a)
      for (std::size_t b = a + 1; b < units.size(); ++b) {
        Unit& u = units[a];
        Unit& w = units[b];
        const int cu = cluster(a), cw = cluster(b);
        if (!u.moves || !w.moves || u.slots.size() != w.slots.size() || cu == cw ||
            (u.traffic.empty() && w.traffic.empty()))
          continue;
        const double f = swapped(u, cu, w, cw);
        if (f >= now * (1 - 1e-9)) continue;
        add(load, u, cu, -1.0);
        add(load, w, cw, -1.0);
        add(load, u, cw, 1.0);
        add(load, w, cu, 1.0);
        std::swap(u.slots, w.slots);
        now = f;
        better = true;
      }
  }
  // Each CU's new slot: the unit's CUs in the order it took them.
  std::vector<int> to(static_cast<std::size_t>(cores));
  std::iota(to.begin(), to.end(), 0);
  int moved = 0;
  for (const Unit& u : units)
    for (std::size_t k = 0; k < u.cores.size(); ++k) {
      to[static_cast<std::size_t>(u.cores[k])] = u.slots[k];
      moved += u.cores[k] != u.slots[k];
    }
  for (Node& n : g.nodes) {
    for (int& c : n.cores) c = to[static_cast<std::size_t>(c)];
    for (ColumnTile& ct : n.tiles)
      for (ColumnTile::Part& p : ct.parts) p.core = to[static_cast<std::size_t>(p.core)];
  }
  return moved;
}

}  // namespace vp::cc
