// The shared placement (map_layers.h): a CU holds loads of many layers, a
// layer's bins on distinct CUs near its home CU.
#include <algorithm>

#include "map_layers.h"

namespace vp::cc {

// Places every layer's copies; false when some bin finds no CU. Bins go
// largest first (a 16-crossbar bin needs an empty CU, small ones fill the
// gaps), each to the CU it fits most tightly, ties to the CU nearest the
// layer's first one, never two bins of one layer on one CU.
bool place_shared(Graph& g, const Target& t, std::vector<Layer>& layers) {
  struct Item {
    int layer, copy, bin, xbars;
  };
  std::vector<Item> items;
  for (std::size_t l = 0; l < layers.size(); ++l)
    for (int r = 0; r < layers[l].copies; ++r)
      for (std::size_t b = 0; b < layers[l].bins.size(); ++b)
        items.push_back({static_cast<int>(l), r, static_cast<int>(b), layers[l].bins[b].xbars});
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.xbars > b.xbars; });
  const std::size_t C = static_cast<std::size_t>(t.cores());
  std::vector<int> free(C, t.xbars_per_cu);
  std::vector<std::vector<char>> taken(layers.size(), std::vector<char>(C, 0));
  std::vector<int> home(layers.size(), -1);
  struct Spot {
    int core, xbar0;
  };
  std::vector<std::vector<std::vector<Spot>>> at(layers.size());
  for (std::size_t l = 0; l < layers.size(); ++l)
    at[l].assign(static_cast<std::size_t>(layers[l].copies), std::vector<Spot>(layers[l].bins.size(), Spot{-1, 0}));
  // Layers start spread over the chip, in order, so consecutive layers are neighbours.
  for (std::size_t l = 0; l < layers.size(); ++l)
    home[l] = static_cast<int>(l * C / std::max<std::size_t>(layers.size(), 1));
  for (const Item& it : items) {
    const std::size_t l = static_cast<std::size_t>(it.layer);
    int best = -1;
    for (std::size_t c = 0; c < C; ++c) {
      if (taken[l][c] || free[c] < it.xbars) continue;
      if (best < 0) {
        best = static_cast<int>(c);
        continue;
      }
      const std::size_t b = static_cast<std::size_t>(best);
      const int d = t.hops(static_cast<int>(c), home[l]), db = t.hops(best, home[l]);
      if (free[c] < free[b] || (free[c] == free[b] && d < db)) best = static_cast<int>(c);
    }
    if (best < 0) return false;
    const std::size_t b = static_cast<std::size_t>(best);
    taken[l][b] = 1;
    at[l][static_cast<std::size_t>(it.copy)][static_cast<std::size_t>(it.bin)] = {best, t.xbars_per_cu - free[b]};
    free[b] -= it.xbars;
  }
  for (std::size_t l = 0; l < layers.size(); ++l) {
    Layer& L = layers[l];
    Node& n = g.nodes[static_cast<std::size_t>(L.node)];
    n.tiles.clear();
    n.cores.clear();
    for (int r = 0; r < L.copies; ++r) {
      std::vector<ColumnTile> copy = L.tiles;
      for (ColumnTile& ct : copy) ct.copy = r;
      for (std::size_t bi = 0; bi < L.bins.size(); ++bi) {
        const Spot sp = at[l][static_cast<std::size_t>(r)][bi];
        n.cores.push_back(sp.core);
        int xb = sp.xbar0;
        for (const Slot& s : L.bins[bi].slots) {
          copy[static_cast<std::size_t>(s.tile)].parts.push_back({sp.core, xb, s.row_tile0, s.row_tiles});
          xb += s.row_tiles;
        }
      }
      n.tiles.insert(n.tiles.end(), copy.begin(), copy.end());
    }
    n.replicas = L.copies;
  }
  return true;
}

}  // namespace vp::cc
