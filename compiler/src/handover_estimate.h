// The row hand-over's messages (emit_sync.cpp) a core of a layer sends and
// takes per inference, estimated before emission from the copies of the
// layer and of its writers and readers: the copy choice (map_crossbars.cpp)
// prices them, since each costs the core a pass of its table loop
// (kTokenCycles). After emission the report counts them exactly
// (Node::sync_tokens).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vp/cc/graph.h"

namespace vp::cc {

class HandoverEstimate {
 public:
  // One entry per stage of the pipelined placement: its node and the CUs of
  // one copy (a copy's loads each take a core, and each core of a copy
  // writes or reads the copy's rows).
  HandoverEstimate(const Graph& g, const std::vector<int>& nodes, const std::vector<int>& cus_per_copy);
  // Messages of one core of stage i with k copies, the others at `copies`.
  std::int64_t messages(std::size_t i, int k, const std::vector<int>& copies) const;

 private:
  struct Edge {
    std::size_t writer, reader;
    std::int64_t kw, sw;  // the reader's window along a row over the writer's output
  };
  const Graph& g_;
  std::vector<int> nodes_, cus_;
  std::vector<Edge> edges_;
  std::vector<std::vector<std::size_t>> edges_of_;
};

}  // namespace vp::cc
