// Graph helpers shared by every pass.
#include <algorithm>
#include <set>

#include "vp/cc/graph.h"

namespace vp::cc {

std::vector<int> Graph::consumers(int id) const {
  std::vector<int> out;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (std::find(nodes[i].in.begin(), nodes[i].in.end(), id) != nodes[i].in.end()) out.push_back(static_cast<int>(i));
  return out;
}

int Graph::producer(int id) const {
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (std::find(nodes[i].out.begin(), nodes[i].out.end(), id) != nodes[i].out.end()) return static_cast<int>(i);
  return -1;
}

void Graph::remove_dead_nodes() {
  // Walk backwards from the outputs: a node lives if any output is read by a
  // live node or is a graph output.
  std::set<int> live(outputs.begin(), outputs.end());
  std::vector<bool> keep(nodes.size(), false);
  for (std::size_t i = nodes.size(); i-- > 0;) {
    for (int o : nodes[i].out)
      if (live.count(o)) keep[i] = true;
    if (keep[i]) live.insert(nodes[i].in.begin(), nodes[i].in.end());
  }
  std::vector<Node> kept;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (keep[i]) kept.push_back(std::move(nodes[i]));
  nodes = std::move(kept);
}

int Graph::constant_rows(int id, std::int64_t r0, std::int64_t r1, const std::string& suffix) {
  Value v = val(id);
  if (v.dims.empty() || v.dims[0] <= 0 || v.data.size() <= 1) return id;
  const auto per = v.data.size() / static_cast<std::size_t>(v.dims[0]);
  v.data.assign(v.data.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(r0) * per),
                v.data.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(r1) * per));
  v.dims[0] = r1 - r0;
  v.name += suffix;
  return add_value(std::move(v));
}

}  // namespace vp::cc
