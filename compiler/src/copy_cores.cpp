// The cores of a pad layer's input copy and of a stream's output copies
// (passes.h), asked by the emitter, which places the copies, and by the
// estimate, which counts their work on those cores.
#include <algorithm>
#include <map>
#include <set>

#include "schedule_cost.h"
#include "vp/cc/passes.h"

namespace vp::cc {

// How long a copy of v keeps each of its cores: its rows one after the
// other, a DMA in and one out each, or the whole map through one link (the
// global memory's port: ResNet-18's 150 KB image about 20 k cycles).
static double copy_cycles(const Target& t, const Value& v, std::size_t cores) {
  const CostModel cm(t);
  const std::int64_t row = v.shape.w * v.shape.c;
  const std::int64_t rows = (v.shape.h + static_cast<std::int64_t>(cores) - 1) / static_cast<std::int64_t>(cores);
  return std::max(static_cast<double>(rows * 2 * cm.dma(row)),
                  static_cast<double>(v.shape.numel()) / t.link_bytes_per_cycle());
}

std::vector<int> copy_cores_of(const Graph& g, const Target& t, const Value& v, const std::vector<int>& pool) {
  const std::set<int> all(pool.begin(), pool.end());
  const std::size_t want = static_cast<std::size_t>(
      std::min<std::int64_t>({16, std::max<std::int64_t>(1, v.shape.h), static_cast<std::int64_t>(all.size())}));
  std::vector<int> cores;
  if (all.empty()) return cores;
  if (g.batch > 1) {
    // A stream's copy runs beside the layers of the images before, which
    // keep the mesh busy: at most half its cores in one cluster, the lowest
    // clusters first. All 16 in one cluster, tiny_cnn's stream took 4,112
    // cycles per inference, 3,598 over two clusters; over all sixteen,
    // ResNet-50's took 326,302 against 322,177 over two.
    const std::size_t cap = (want + 1) / 2;
    std::map<int, std::size_t> taken;
    for (int c : all)
      if (cores.size() < want && taken[t.cluster_of(c)] < cap) {
        cores.push_back(c);
        ++taken[t.cluster_of(c)];
      }
    for (int c : all)  // too few clusters in the pool: the rest anywhere
      if (cores.size() < want && std::find(cores.begin(), cores.end(), c) == cores.end()) cores.push_back(c);
    std::sort(cores.begin(), cores.end());
    return cores;
  }
  // One image: the copy is the first thing the chip does, its rows' tokens
  // sent in a burst, so one core of each cluster first, then a second of
  // each (tiny_cnn's 16 in one cluster took 28 cycles a send where one
  // takes 2). In a cluster, which core first: one of the pipeline's head
  // delays its own layer by the copy; one of its tail halts last, and the
  // firmware, which waits for the cores in the order it started them (the
  // copy's first), then passes over all the others once more, a few cycles
  // each (tiny_cnn's 393: 1.2 k cycles, its copy 0.9 k). The tail's core
  // when the copy is the longer: ResNet-50 735,173 cycles with the head's,
  // 717,601 with the tail's (741,542 with all 16 in cluster 0).
  std::map<int, std::size_t> first;  // each core's first layer
  for (std::size_t k = 0; k < g.nodes.size(); ++k)
    if (!g.nodes[k].fused)
      for (int c : g.nodes[k].cores) first.emplace(c, k);
  const bool tail = copy_cycles(t, v, want) >
                    static_cast<double>(CostModel::start_per_core() * static_cast<std::int64_t>(first.size()));
  std::map<int, std::vector<std::pair<std::size_t, int>>> by_cluster;
  for (int c : all) by_cluster[t.cluster_of(c)].emplace_back(first[c], c);
  for (auto& [cl, in] : by_cluster)
    std::sort(in.begin(), in.end(), [tail](const auto& x, const auto& y) {
      if (x.first != y.first) return tail ? x.first > y.first : x.first < y.first;
      return x.second < y.second;
    });
  for (std::size_t rank = 0; cores.size() < want; ++rank)
    for (const auto& [cl, in] : by_cluster)
      if (rank < in.size() && cores.size() < want) cores.push_back(in[rank].second);
  std::sort(cores.begin(), cores.end());
  return cores;
}

std::vector<int> stream_copy_cores(const Graph& g, const Target& t, const Value& v, const std::vector<int>& near) {
  std::set<int> pool;
  for (int id : near) {
    const Node& n = g.nodes[static_cast<std::size_t>(id)];
    if (n.fused) continue;
    pool.insert(n.cores.begin(), n.cores.end());
  }
  return copy_cores_of(g, t, v, std::vector<int>(pool.begin(), pool.end()));
}

std::vector<int> output_writer(const Graph& g, std::size_t i) {
  int writer = g.producer(g.outputs.at(i));
  for (std::size_t k = 0; k < g.nodes.size(); ++k)
    if (g.nodes[k].fused_next == writer) writer = static_cast<int>(k);
  return writer >= 0 ? std::vector<int>{writer} : std::vector<int>{};
}

}  // namespace vp::cc
