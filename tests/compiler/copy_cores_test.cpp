// Which cores copy a graph input into its bordered buffer (copy_cores.cpp).
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "vp/cc/graph.h"
#include "vp/cc/passes.h"
#include "vp/cc/target.h"

namespace vp::cc {
namespace {

void add_layer(Graph& g, const std::string& name, std::vector<int> cores) {
  Node n;
  n.name = name;
  n.op = OpKind::Relu;
  n.cores = std::move(cores);
  g.nodes.push_back(n);
}

Value map(std::int64_t c, std::int64_t h, std::int64_t w) {
  Value v;
  v.shape = {c, h, w};
  return v;
}

// A pipeline's head and tail on four clusters of 25 CUs, the head's cores
// CUs 0 to 2 of each cluster, the tail's CU 10; between them a layer on
// the 225 CUs of clusters 4 to 12, which the firmware starts and waits for
// too (5 cycles each: 1,200 for all 240).
struct TwoLayers {
  Target t;
  Graph g;
  std::vector<int> pool;
  TwoLayers() {
    std::vector<int> head, tail;
    for (int cl = 0; cl < 4; ++cl) {
      for (int cu = 0; cu < 3; ++cu) head.push_back(cl * t.cus_per_cluster + cu);
      tail.push_back(cl * t.cus_per_cluster + 10);
    }
    std::vector<int> middle;
    for (int c = 4 * t.cus_per_cluster; c < 13 * t.cus_per_cluster; ++c) middle.push_back(c);
    add_layer(g, "head", head);
    add_layer(g, "middle", middle);
    add_layer(g, "tail", tail);
    pool = head;
    pool.insert(pool.end(), tail.begin(), tail.end());
  }
};

std::vector<int> clusters_of(const Target& t, const std::vector<int>& cores) {
  std::vector<int> cl;
  for (int c : cores) cl.push_back(t.cluster_of(c));
  std::sort(cl.begin(), cl.end());
  return cl;
}

TEST(CopyCores, OneCoreOfEachClusterBeforeASecondOfAny) {
  TwoLayers m;
  // A small map: eight rows, so eight cores, two in each of the four
  // clusters (all sixteen in cluster 0 before).
  const std::vector<int> cores = copy_cores_of(m.g, m.t, map(3, 8, 32), m.pool);
  ASSERT_EQ(cores.size(), 8u);
  EXPECT_EQ(clusters_of(m.t, cores), (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_TRUE(std::is_sorted(cores.begin(), cores.end()));
  EXPECT_EQ(std::set<int>(cores.begin(), cores.end()).size(), cores.size());
  // A row each, at most sixteen, at most the pool.
  EXPECT_EQ(copy_cores_of(m.g, m.t, map(3, 3, 32), m.pool).size(), 3u);
  EXPECT_EQ(copy_cores_of(m.g, m.t, map(3, 300, 32), m.pool).size(), 16u);
  EXPECT_EQ(copy_cores_of(m.g, m.t, map(3, 300, 32), {5, 6}).size(), 2u);
  EXPECT_TRUE(copy_cores_of(m.g, m.t, map(3, 8, 32), {}).empty());
  // The pool's order does not matter.
  std::vector<int> reversed(m.pool.rbegin(), m.pool.rend());
  EXPECT_EQ(copy_cores_of(m.g, m.t, map(3, 8, 32), reversed), cores);
}

TEST(CopyCores, AShortCopyGoesToThePipelinesHeadALongOneToItsTail) {
  TwoLayers m;
  // Four rows of 32 pixels: shorter than the firmware's pass over the 240
  // cores, so the head's first CU of each cluster.
  EXPECT_EQ(copy_cores_of(m.g, m.t, map(3, 4, 32), m.pool), (std::vector<int>{0, 25, 50, 75}));
  // Four rows of 20,000 pixels (240 KB through one link, 30 k cycles): the
  // tail's, which would wait that long for their own inputs anyway.
  EXPECT_EQ(copy_cores_of(m.g, m.t, map(3, 4, 20000), m.pool), (std::vector<int>{10, 35, 60, 85}));
}

TEST(CopyCores, AStreamsCopyTakesTwoClustersAtMostHalfInEach) {
  TwoLayers m;
  m.g.batch = 16;
  // Sixteen rows: eight cores in each of the two lowest clusters the pool
  // has (clusters 4 to 12 are the middle layer's, not the pool's).
  std::vector<int> pool;
  for (int cl = 0; cl < 3; ++cl)
    for (int cu = 0; cu < 12; ++cu) pool.push_back(cl * m.t.cus_per_cluster + cu);
  const std::vector<int> cores = copy_cores_of(m.g, m.t, map(3, 16, 32), pool);
  ASSERT_EQ(cores.size(), 16u);
  EXPECT_EQ(clusters_of(m.t, cores), (std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(cores.front(), 0);
  EXPECT_EQ(cores.back(), m.t.cus_per_cluster + 7);
  // Four rows: two and two.
  EXPECT_EQ(copy_cores_of(m.g, m.t, map(3, 4, 32), pool), (std::vector<int>{0, 1, 25, 26}));
  // A pool in one cluster: all of it there.
  EXPECT_EQ(copy_cores_of(m.g, m.t, map(3, 4, 32), {3, 4, 5, 6, 7}), (std::vector<int>{3, 4, 5, 6}));
}

}  // namespace
}  // namespace vp::cc
