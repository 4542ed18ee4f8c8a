// The cores of a stream's input and output copies (passes.h), asked by the
// emitter, which places the copies, and by the stream's period, which
// counts their work on those cores.
#include <algorithm>
#include <set>

#include "vp/cc/passes.h"

namespace vp::cc {

std::vector<int> stream_copy_cores(const Graph& g, const Value& v, const std::vector<int>& near) {
  std::set<int> pool;
  for (int id : near) {
    const Node& n = g.nodes[static_cast<std::size_t>(id)];
    if (n.fused) continue;
    pool.insert(n.cores.begin(), n.cores.end());
  }
  std::vector<int> cores;
  for (int c : pool)
    if (static_cast<std::int64_t>(cores.size()) < std::min<std::int64_t>(16, v.shape.h)) cores.push_back(c);
  return cores;
}

std::vector<int> output_writer(const Graph& g, std::size_t i) {
  int writer = g.producer(g.outputs.at(i));
  for (std::size_t k = 0; k < g.nodes.size(); ++k)
    if (g.nodes[k].fused_next == writer) writer = static_cast<int>(k);
  return writer >= 0 ? std::vector<int>{writer} : std::vector<int>{};
}

}  // namespace vp::cc
