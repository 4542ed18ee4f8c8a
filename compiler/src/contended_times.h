// The report's estimate with the waits at busy links and ports.
//
// The stages are priced as the code loads its rows (Node::loaded_stage_cycles)
// and each is then lengthened by what its DMAs wait behind the other
// layers' flits on the links and ports they cross (mesh_load.h's routes):
// at a resource busy a fraction rho of the time, a flit waits about
// rho / (1 - rho) flit times (a single queue with random arrivals), behind
// the flits that reach it over the resource's other inputs (those that came
// over its own were let out before it, one at a time). Without
// the waits the stages are short wherever the mesh is busy (ResNet-50's
// stream: estimate 0.65 of the run); the copy choice's whole-row charge stood
// in for them, and was long wherever it is quiet (ResNet-18 at batch 1: 1.44).
#pragma once

#include "schedule_cost.h"
#include "vp/cc/graph.h"
#include "vp/cc/target.h"

namespace vp::cc {

// The loaded prices with the row hand-over's messages (stage_with_tokens).
StagePrices loaded_prices(const Graph &g);

// One inference: each layer's busy time is [first row - step, last row] of
// the critical path (overlapped_times); a resource's load over a layer's
// time is every layer's flits on it in that time, each spread evenly over
// its own. The prices and the path are iterated until they agree.
struct Contended {
  StagePrices prices;
  RowTimes rt;
};
Contended contended_times(const Graph &g, const Target &t);

// A stream's period: every layer busy all the time, so a resource's load is
// its flits per image over the period; the period is where the slowest stage
// with its waits at that load meets it, and no less than `floor` (the
// memory floor, the busiest port and link). `stage_at` gets that stage.
double contended_period(const Graph &g, const Target &t, double floor, double *stage_at = nullptr);

}  // namespace vp::cc
