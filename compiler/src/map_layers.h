// What map_crossbars.cpp's two placements share: a layer's weight matrix
// in column tiles, one copy's CU loads (bins) and its copies.
#pragma once

#include <vector>

#include "schedule_cost.h"
#include "vp/cc/graph.h"
#include "vp/cc/target.h"

namespace vp::cc {

struct Slot {
  int tile, row_tile0, row_tiles;
};
struct Bin {
  std::vector<Slot> slots;
  int xbars = 0;
};
constexpr int kMaxGroup = 16;  // mvm's crossbar mask

struct Layer {
  int node;
  std::vector<ColumnTile> tiles;  // one copy, no parts yet
  std::vector<Bin> bins;
  LayerCost cost;
  int xbars = 0;
  int max_copies = 1;
  int copies = 1;
};

// The shared placement (map_shared.cpp): a CU holds loads of many layers.
// Places every layer's copies; false when some bin finds no CU.
bool place_shared(Graph& g, const Target& t, std::vector<Layer>& layers);

}  // namespace vp::cc
